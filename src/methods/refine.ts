import { answerInstructions } from '../prompting/answerInstructions.js';
import { formatContextBlock } from '../prompting/contextBlock.js';
import { passageBlock, textBlock, type PassageBlock } from './passages.js';
import { bestSentences, methodFactory, readPassages } from './reader.js';
import { stepMessages } from './prompts.js';
import { answerPrompt } from './templates/answer.js';
import { CONDENSED_TITLE, condensePrompt } from './templates/refine.js';
import type { CallBound, MethodOutcome, PlanInput } from './types.js';
import { refineSchema } from './refineSchema.js';

/**
 * A context refiner between retrieval and the prompt, after RECOMP (Xu et al. 2024) and FlashRAG's
 * refiners. Extractive: the k passages are split into sentences, each scored against the question
 * as the retriever ranks (the index's embedder, or BM25 for a BM25 index), and the best `keep`
 * sentences are kept in their original order, grouped under their passages. Abstractive: the
 * model first condenses the passages with respect to the question, then answers from that text.
 * Either way the trace records characters and tokens before and after.
 */
export const createRefineMethod = methodFactory({
  ...refineSchema,
  prompts: { condense: condensePrompt, answer: answerPrompt },
  create(params, prompts) {
    return {
      // Extractive: one prompt, built by the plan exactly as the run will (the sentences' scores are the retriever's).
      calls: params.mode === 'abstractive' ? { min: 2, max: 2 } : { min: 1, max: 1, singleShot: true },
      ...(params.mode === 'abstractive'
        ? {
            planCalls: ({ item, questionPassages }: PlanInput): CallBound[] => [
              { label: 'condense', always: true, prompts: [{ prompt: prompts.condense, slots: { context: passageBlock(questionPassages ?? [], params).block, question: item.question } }] },
              {
                label: 'answer',
                always: true,
                prompts: [{ prompt: prompts.answer, slots: { context: { outputs: 1, around: formatContextBlock([{ title: CONDENSED_TITLE, text: '' }]), none: textBlock(CONDENSED_TITLE, '') }, question: item.question, instructions: answerInstructions(item, params.instructions) } }],
              },
            ],
          }
        : {}),
      needsRelevance: params.mode === 'extractive',
      async run(context): Promise<MethodOutcome> {
        const { item } = context;
        const passages = await context.retrieve(item.question, 'retrieve');
        const full = passageBlock(passages, params);
        let placed: PassageBlock;
        let figures: Record<string, number>;
        if (params.mode === 'extractive') {
          const { refined, sentences, kept } = await bestSentences(context, passages, params.keep, 'score-sentences');
          placed = passageBlock(refined, params);
          figures = { sentencesBefore: sentences, sentencesKept: kept, charsAfter: refined.reduce((n, c) => n + c.text.length, 0), tokensAfter: placed.tokens };
        } else {
          const condensed = await context.generate('condense', stepMessages(prompts.condense, { context: full.block, question: item.question }));
          placed = { ...full, block: textBlock(CONDENSED_TITLE, condensed.text) };
          figures = { charsAfter: condensed.text.length, tokensAfter: context.countTokens(placed.block) };
        }
        const charsBefore = passages.reduce((n, c) => n + c.text.length, 0);
        context.record('refine', params.mode, { passages: passages.length, charsBefore, tokensBefore: full.tokens, ...figures });
        return readPassages(context, prompts.answer, placed, params, { charsBefore, charsAfter: figures.charsAfter!, compression: charsBefore ? figures.charsAfter! / charsBefore : 1 });
      },
    };
  },
});
