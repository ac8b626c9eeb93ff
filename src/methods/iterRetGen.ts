import { answerInstructions } from '../prompting/answerInstructions.js';
import { passageBlock } from './passages.js';
import { methodFactory } from './reader.js';
import { stepMessages } from './prompts.js';
import { answerPrompt } from './templates/answer.js';
import type { CallBound, MethodOutcome, PlanInput } from './types.js';
import { iterRetGenSchema } from './iterRetGenSchema.js';

/**
 * Iter-RetGen (Shao et al. 2023, "Enhancing Retrieval-Augmented Large Language Models with
 * Iterative Retrieval-Generation Synergy"): `rounds` rounds of retrieve → generate, each round's
 * query being the question followed by the previous round's answer, so that what the model
 * produced steers the next retrieval. The last round's answer is the answer.
 */
export const createIterRetGenMethod = methodFactory({
  ...iterRetGenSchema,
  prompts: { answer: answerPrompt },
  create(params, prompts) {
    return {
      calls: { min: params.rounds, max: params.rounds },
      // Round 1 answers from the question's passages; later rounds from k passages of a query the model steered.
      planCalls: ({ item, k, questionPassages }: PlanInput): CallBound[] => {
        const instructions = answerInstructions(item, params.instructions);
        return Array.from({ length: params.rounds }, (_, i) => ({
          label: `answer[${i + 1}]`,
          always: true,
          prompts: [
            i === 0
              ? { messages: stepMessages(prompts.answer, { context: passageBlock(questionPassages ?? [], params).block, question: item.question, instructions }) }
              : { prompt: prompts.answer, slots: { context: { passages: k, params }, question: item.question, instructions } },
          ],
        }));
      },
      async run(context): Promise<MethodOutcome> {
        const { item } = context;
        const instructions = answerInstructions(item, params.instructions);
        let previous = '';
        let last: MethodOutcome | undefined;
        for (let round = 1; round <= params.rounds; round++) {
          const query = previous ? `${item.question}\n${previous}` : item.question;
          const passages = await context.retrieve(query, `retrieve[${round}]`);
          const placed = passageBlock(passages, params);
          const messages = stepMessages(prompts.answer, { context: placed.block, question: item.question, instructions });
          const response = await context.generate(`answer[${round}]`, messages, { final: round === params.rounds });
          previous = response.text.trim();
          last = { answer: response.text, response, prompt: messages, contextIds: placed.ids, truncated: placed.dropped };
        }
        return { ...last!, notes: { rounds: params.rounds } };
      },
    };
  },
});
