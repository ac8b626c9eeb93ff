import type { PromptStrategy } from '../prompting/types.js';
import type { MethodContext, MethodOutcome, RagMethod } from './types.js';

/**
 * One prompt, one answer: a prompting strategy as a method. Closed-book strategies (`closed-book`,
 * `role`, `prof`, `cot`, `longhisdoc-full`) ask once; a retrieval strategy (`rag`, and the method
 * `standard`) retrieves k passages for the question once, then asks. This is the path every
 * experiment took before methods existed, and it still gives the same prompts and answers.
 */
export function singleShotMethod(strategy: PromptStrategy, name = strategy.name): RagMethod {
  return {
    name,
    usesRetrieval: strategy.usesRetrieval,
    ...(strategy.defaultDepths ? { defaultDepths: strategy.defaultDepths } : {}),
    calls: { min: 1, max: 1, singleShot: true },
    ...(strategy.prepare ? { prepare: (items) => strategy.prepare!(items) } : {}),
    async run(context: MethodContext): Promise<MethodOutcome> {
      const passages = strategy.usesRetrieval ? await context.retrieve(context.item.question, 'retrieve') : null;
      const prompt = strategy.build({ item: context.item, context: passages });
      const response = await context.generate('answer', prompt.messages, { final: true });
      // Chain-of-thought strategies are scored on their final answer only.
      const answer = strategy.finalAnswer?.(response.text) ?? response.text;
      return { answer, response, prompt: prompt.messages, contextIds: prompt.contextIds, truncated: prompt.truncated };
    },
  };
}
