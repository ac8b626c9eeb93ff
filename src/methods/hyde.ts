import { passageBlock } from './passages.js';
import { stepMessages } from './prompts.js';
import { answerCall, methodFactory, readPassages } from './reader.js';
import { answerPrompt } from './templates/answer.js';
import { hypothesisPrompt } from './templates/hyde.js';
import type { CallBound, MethodOutcome, PlanInput } from './types.js';
import { hydeSchema } from './hydeSchema.js';

/** What the hypothesis prompt says after the first one, so that n samples differ even at temperature 0 (and in the response cache). */
export const hypothesisVariant = (index: number) => (index === 1 ? '' : `（这是第${index}段，请换一个角度撰写，与前几段不同。）`);

/**
 * HyDE (Gao et al. 2022, "Precise Zero-Shot Dense Retrieval without Relevance Labels"): the model
 * writes a hypothetical passage answering the question; the retriever searches with it instead of
 * the question (the passage may be wrong — only its wording and vocabulary lead to real passages);
 * then the answer is read from the k passages found. The paper averages the embeddings of several
 * hypotheses and the question; hisrag's retrievers take text, so the hypotheses (and, with
 * `includeQuestion`, the question) are searched with as one text — for a mean-pooled encoder the
 * embedding of a concatenation is the token-weighted average of its parts', and for BM25 it is
 * their joint vocabulary. One retrieval, `hypotheses` + 1 generations.
 */
export const createHydeMethod = methodFactory({
  ...hydeSchema,
  prompts: { hypothesis: hypothesisPrompt, answer: answerPrompt },
  create(params, prompts) {
    const hypothesisMessages = (question: string, index: number) => stepMessages(prompts.hypothesis, { question, variant: hypothesisVariant(index) });
    return {
      calls: { min: params.hypotheses + 1, max: params.hypotheses + 1 },
      // The hypothesis prompts hold only the question (built exactly); the answer at most k passages.
      planCalls: ({ item, k }: PlanInput): CallBound[] => [
        ...Array.from({ length: params.hypotheses }, (_, i) => ({ label: `hypothesis[${i + 1}]`, always: true, prompts: [{ messages: hypothesisMessages(item.question, i + 1) }] })),
        answerCall(prompts.answer, item, k, params),
      ],
      async run(context): Promise<MethodOutcome> {
        const { item } = context;
        const hypotheses: string[] = [];
        for (let i = 1; i <= params.hypotheses; i++) {
          const reply = await context.generate(`hypothesis[${i}]`, hypothesisMessages(item.question, i));
          hypotheses.push(reply.text.trim());
        }
        const query = [...(params.includeQuestion ? [item.question] : []), ...hypotheses].join('\n');
        const passages = await context.retrieve(query, 'retrieve');
        return readPassages(context, prompts.answer, passageBlock(passages, params), params, { hypotheses: hypotheses.length, hypothesisChars: hypotheses.reduce((n, h) => n + h.length, 0) });
      },
    };
  },
});
