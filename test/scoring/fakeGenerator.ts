import type { Generator, GenerationResult } from '../../src/generation/types.js';
import type { ChatMessage } from '../../src/prompting/types.js';

/** A generator that replays scripted outputs (an Error entry makes that call throw). */
export function scriptedGenerator(outputs: Array<string | Error>): Generator & { calls: ChatMessage[][] } {
  const calls: ChatMessage[][] = [];
  return {
    name: 'scripted',
    model: 'scripted-judge',
    calls,
    async generate(messages): Promise<GenerationResult> {
      calls.push(messages);
      const next = outputs[Math.min(calls.length - 1, outputs.length - 1)];
      if (next instanceof Error) throw next;
      const text = next ?? '';
      return { text: text.replace(/^[\s\S]*<\/think>/, ''), raw: text };
    },
    describe: () => ({ name: 'scripted' }),
  };
}
