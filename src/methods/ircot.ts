import { splitSentences } from '../chunking/sentences.js';
import { answerInstructions } from '../prompting/answerInstructions.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { passageBlock } from './passages.js';
import { methodFactory } from './reader.js';
import { stepMessages } from './prompts.js';
import { concludePrompt, NO_REASONING_YET, reasonPrompt } from './templates/ircot.js';
import type { CallBound, MethodOutcome, PlanInput } from './types.js';
import { ircotSchema } from './ircotSchema.js';

/**
 * IRCoT (Trivedi et al. 2023, "Interleaving Retrieval with Chain-of-Thought Reasoning for
 * Knowledge-Intensive Multi-Step Questions"): retrieve with the question, then alternate — the
 * model writes the next sentence of its reasoning, and that sentence is the next query — keeping
 * the union of the passages (deduplicated, capped at `maxPassages`), until the model gives its
 * final answer or `maxSteps` steps have run; then one last call asks for the answer.
 */
export const createIrcotMethod = methodFactory({
  ...ircotSchema,
  prompts: { reason: reasonPrompt, conclude: concludePrompt },
  create(params, prompts) {
    return {
      // A final answer in the first reasoning step ends it; otherwise maxSteps steps and a conclusion.
      calls: { min: 1, max: params.maxSteps + 1 },
      // Step s sees the union of s retrievals (capped) and s − 1 reasoning sentences (each at most an output); the conclusion all of them.
      planCalls: ({ item, k, questionPassages }: PlanInput): CallBound[] => {
        const instructions = answerInstructions(item, params.instructions);
        const cap = params.maxPassages ?? 3 * k;
        const firstPassages = passageBlock((questionPassages ?? []).filter((c, i, all) => all.findIndex((o) => o.id === c.id) === i).slice(0, cap), params).block;
        const bound = (retrievals: number, sentences: number) => ({
          context: { passages: Math.min(cap, retrievals * k), params },
          question: item.question,
          reasoning: { outputs: sentences, around: '\n', none: NO_REASONING_YET },
          instructions,
        });
        return [
          { label: 'reason[1]', always: true, prompts: [{ messages: stepMessages(prompts.reason, { context: firstPassages, question: item.question, reasoning: NO_REASONING_YET, instructions }) }] },
          ...Array.from({ length: params.maxSteps - 1 }, (_, i) => ({ label: `reason[${i + 2}]`, always: false, prompts: [{ prompt: prompts.reason, slots: bound(i + 2, i + 1) }] })),
          { label: 'conclude', always: false, prompts: [{ prompt: prompts.conclude, slots: bound(params.maxSteps + 1, params.maxSteps) }] },
        ];
      },
      async run(context): Promise<MethodOutcome> {
        const { item } = context;
        const instructions = answerInstructions(item, params.instructions);
        const cap = params.maxPassages ?? 3 * context.k;
        const passages: RetrievedChunk[] = [];
        const add = (list: RetrievedChunk[]) => {
          for (const chunk of list) if (passages.length < cap && !passages.some((p) => p.id === chunk.id)) passages.push(chunk);
        };
        add(await context.retrieve(item.question, 'retrieve[0]'));
        const reasoning: string[] = [];
        const values = () => {
          const placed = passageBlock(passages, params);
          return { placed, slots: { context: placed.block, question: item.question, reasoning: reasoning.join('\n') || NO_REASONING_YET, instructions } };
        };
        for (let step = 1; step <= params.maxSteps; step++) {
          const { placed, slots } = values();
          const messages = stepMessages(prompts.reason, slots);
          const response = await context.generate(`reason[${step}]`, messages, { final: false });
          const at = response.text.indexOf(params.finalAnswerPrefix);
          if (at >= 0) {
            const answer = response.text.slice(at + params.finalAnswerPrefix.length).trim();
            return { answer, response: { ...response, text: answer }, prompt: messages, contextIds: placed.ids, truncated: placed.dropped, notes: { steps: step, reachedMaxSteps: false } };
          }
          // IRCoT keeps only the first new sentence of the reply as the reasoning step (and query).
          const sentence = splitSentences(response.text)[0]?.text.trim() ?? response.text.trim();
          reasoning.push(sentence);
          add(await context.retrieve(sentence, `retrieve[${step}]`));
        }
        const { placed, slots } = values();
        const messages = stepMessages(prompts.conclude, slots);
        const response = await context.generate('conclude', messages, { final: true });
        return { answer: response.text, response, prompt: messages, contextIds: placed.ids, truncated: placed.dropped, notes: { steps: params.maxSteps, reachedMaxSteps: true } };
      },
    };
  },
});
