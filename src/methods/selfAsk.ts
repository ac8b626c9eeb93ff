import { FOLLOW_UP_PREFIX, NO_FOLLOW_UP } from '../prompting/taskFormat.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { passageBlock } from './passages.js';
import { answerCall, methodFactory, readPassages } from './reader.js';
import { stepMessages } from './prompts.js';
import { finalPrompt, followUpPrompt, intermediatePrompt, NOTHING_KNOWN_YET } from './templates/selfAsk.js';
import type { CallBound, MethodOutcome, PlanInput } from './types.js';
import { selfAskSchema } from './selfAskSchema.js';

/** The follow-up question in a reply, or null when the model asks none (`无需追问`, or no `追问：`). */
export function parseFollowUp(text: string): string | null {
  const reply = text.trim();
  const at = reply.indexOf(FOLLOW_UP_PREFIX);
  if (at < 0) return null;
  const question = reply.slice(at + FOLLOW_UP_PREFIX.length).split('\n')[0]!.trim();
  if (!question || question.startsWith(NO_FOLLOW_UP)) return null;
  return question;
}

/**
 * Self-Ask (Press et al. 2023, "Measuring and Narrowing the Compositionality Gap in Language
 * Models"), with retrieval answering the follow-ups as in its search-engine variant: the model
 * asks a follow-up question; it is answered from its own k passages; repeat until the model asks
 * none or `maxFollowUps` is reached; then the final answer from the follow-ups' answers and
 * their passages.
 */
export const createSelfAskMethod = methodFactory({
  ...selfAskSchema,
  prompts: { followUp: followUpPrompt, intermediate: intermediatePrompt, answer: finalPrompt },
  create(params, prompts) {
    return {
      // No follow-up: the answer alone after the first ask; at most two calls per follow-up and the answer.
      calls: { min: 2, max: 2 * params.maxFollowUps + 1 },
      // What the model wrote comes back in later prompts: each follow-up and its answer (each at most an output).
      planCalls: ({ item, k }: PlanInput): CallBound[] => {
        const m = params.maxFollowUps;
        const known = (entries: number) => ({ outputs: entries, around: `${FOLLOW_UP_PREFIX}中间答案：\n`, none: NOTHING_KNOWN_YET });
        const calls: CallBound[] = [];
        for (let turn = 1; turn <= m; turn++) {
          calls.push({
            label: `follow-up[${turn}]`,
            always: turn === 1,
            prompts: [turn === 1 ? { messages: stepMessages(prompts.followUp, { question: item.question, known: NOTHING_KNOWN_YET }) } : { prompt: prompts.followUp, slots: { question: item.question, known: known(2 * (turn - 1)) } }],
          });
          calls.push({ label: `intermediate[${turn}]`, always: false, prompts: [{ prompt: prompts.intermediate, slots: { context: { passages: k, params }, question: { outputs: 1 } } }] });
        }
        calls.push(answerCall(prompts.answer, item, m * k, params, { known: known(2 * m) }));
        return calls;
      },
      async run(context): Promise<MethodOutcome> {
        const { item } = context;
        const known: string[] = [];
        const passages: RetrievedChunk[] = [];
        let asked = 0;
        for (let turn = 1; turn <= params.maxFollowUps; turn++) {
          const reply = await context.generate(`follow-up[${turn}]`, stepMessages(prompts.followUp, { question: item.question, known: known.join('\n') || NOTHING_KNOWN_YET }));
          const followUp = parseFollowUp(reply.text);
          if (!followUp) break;
          asked++;
          const found = await context.retrieve(followUp, `retrieve[${turn}]`);
          for (const chunk of found) if (!passages.some((p) => p.id === chunk.id)) passages.push(chunk);
          const placed = passageBlock(found, params);
          const answer = await context.generate(`intermediate[${turn}]`, stepMessages(prompts.intermediate, { context: placed.block, question: followUp }));
          known.push(`${FOLLOW_UP_PREFIX}${followUp}`, `中间答案：${answer.text.trim()}`);
        }
        // Without any follow-up the question itself is looked up, as standard RAG would.
        if (asked === 0) passages.push(...(await context.retrieve(item.question, 'retrieve')));
        return readPassages(context, prompts.answer, passageBlock(passages, params), params, { followUps: asked }, { known: known.join('\n') || NOTHING_KNOWN_YET });
      },
    };
  },
});
