import { z } from 'zod';
import { ServiceUnavailableError } from '../../errors.js';
import { generators } from '../../generation/registry.js';
import type { Generator } from '../../generation/types.js';
import type { RegistryEntry } from '../../registry.js';
import { parseJudgeOutput } from '../rubric/parseJudgeOutput.js';
import { verdictKey } from '../rubric/parseRubric.js';
import type { Judge, JudgeOutcome, Verdicts } from '../types.js';
import { judgeMessages } from './prompt.js';
import { llmJudgeSchema, LlmJudgeParams } from './llmSchema.js';

export { LlmJudgeParams } from './llmSchema.js';

/**
 * A judge that asks an LLM for one verdict line per rubric item; an incomplete output or a failed call
 * is retried `retries` times, then a failure carrying the last raw output — never a silent 0.
 */
export function createLlmJudge(generator: Generator, options: { retries?: number } = {}): Judge {
  const retries = options.retries ?? 2;
  return {
    name: 'llm',
    model: generator.model,
    generator,
    async judge(request): Promise<JudgeOutcome> {
      const keys = request.rubricItems.map(verdictKey);
      const messages = judgeMessages(request);
      let raw = '';
      let error = 'no attempt made';
      for (let attempt = 1; attempt <= retries + 1; attempt++) {
        let text: string;
        try {
          // A retry must reach the model again, not replay a cached unusable reply.
          const result = await generator.generate(messages, attempt > 1 ? { cache: 'refresh' } : {});
          raw = result.raw;
          text = result.text;
        } catch (caught) {
          // An endpoint that is down stops the run (resumable); it is not this answer's judge failure.
          if (caught instanceof ServiceUnavailableError) throw caught;
          error = `judge call failed: ${(caught as Error).message ?? String(caught)}`;
          continue;
        }
        const parsed = parseJudgeOutput(text);
        const missing = keys.filter((key) => !(key in parsed.verdicts));
        if (missing.length === 0) {
          const verdicts: Verdicts = Object.fromEntries(keys.map((key) => [key, parsed.verdicts[key]!]));
          const extraKeys = Object.keys(parsed.verdicts).length - keys.length;
          return { ok: true, verdicts, raw, strayLines: parsed.strayLines + extraKeys, attempts: attempt };
        }
        error = `judge output lacks verdicts for ${missing.join(', ')}`;
      }
      return { ok: false, error: `${error} (after ${retries + 1} attempts)`, raw, attempts: retries + 1 };
    },
  };
}

export const llmJudge: RegistryEntry<z.infer<typeof LlmJudgeParams>, Judge, void> = {
  ...llmJudgeSchema,
  async create(params) {
    const generator = await generators.create(params.generator, undefined, 'judge.generator');
    return createLlmJudge(generator, { retries: params.retries });
  },
};
