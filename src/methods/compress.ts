import type { RetrievedChunk } from '../retrieval/types.js';
import { loadCausalLmScorer, type CausalLmScorer, type ScoredTokens } from './compression/causalLmScorer.js';
import { keptRuns, selectTokens } from './compression/selectTokens.js';
import { passageBlock } from './passages.js';
import { answerCall, methodFactory, readPassages } from './reader.js';
import { answerPrompt } from './templates/answer.js';
import type { CallBound, MethodOutcome, PlanInput } from './types.js';
import { compressSchema } from './compressSchema.js';

/**
 * Token-level context compression after Selective-Context (Li et al. 2023, "Compressing Context to
 * Enhance Inference Efficiency of Large Language Models") and LongLLMLingua's question-aware
 * fine-grained step (Jiang et al. 2023, "LongLLMLingua: Accelerating and Enhancing LLMs in Long
 * Context Scenarios via Prompt Compression"): a small causal LM gives every token of the k passages
 * its self-information −log p(token | question, preceding text of its passage); the most
 * informative tokens across the whole context are kept, in order, up to the target — a share of
 * the tokens (`ratio`) or the tokens of the first `budgetK` passages (`budgetK`: RAG@100 at the
 * token budget of RAG@20, a condition of the depth study) — and the answer is read from the
 * compressed passages. Dropped at token level, a passage keeps its title and pages; one left with no
 * token leaves the prompt. Tokens are the scorer's; the trace records them before, targeted and
 * after, and the run's token counts of the block. 1 retrieval, 1 generation (and one LM pass a passage).
 */
export const createCompressMethod = methodFactory({
  ...compressSchema,
  prompts: { answer: answerPrompt },
  create(params, prompts) {
    let scorer: Promise<CausalLmScorer> | undefined;
    const openScorer = () => (scorer ??= loadCausalLmScorer(params.scorer));
    let description: string | undefined;
    const target = params.ratio !== undefined ? `ratio ${params.ratio}` : `budget of the first ${params.budgetK} passages`;
    return {
      calls: { min: 1, max: 1 },
      // The compressed passages are at most the k retrieved ones.
      planCalls: ({ item, k }: PlanInput): CallBound[] => [answerCall(prompts.answer, item, k, params)],
      async prepare() {
        description = (await openScorer()).description;
      },
      describe: () => (description ? [`compress (${target}): token information by ${description}`] : []),
      async run(context): Promise<MethodOutcome> {
        const { item } = context;
        const lm = await openScorer();
        const passages = await context.retrieve(item.question, 'retrieve');
        const started = Date.now();
        const scored: ScoredTokens[] = [];
        for (const passage of passages) scored.push(await lm.score(item.question, passage.text));
        const before = scored.reduce((n, s) => n + s.ids.length, 0);
        const goal = params.ratio !== undefined ? Math.round(params.ratio * before) : Math.min(before, scored.slice(0, params.budgetK).reduce((n, s) => n + s.ids.length, 0));
        const kept = selectTokens(scored, goal);
        const compressed: RetrievedChunk[] = [];
        passages.forEach((passage, i) => {
          const text = keptRuns(scored[i]!.ids, kept[i]!).map((run) => lm.decode(run)).join('');
          if (text.trim()) compressed.push({ ...passage, text });
        });
        // Measured again from the compressed text: what the prompt really holds, in the scorer's tokens.
        const after = compressed.reduce((n, c) => n + lm.tokenize(c.text).length, 0);
        const full = passageBlock(passages, params);
        const placed = passageBlock(compressed, params);
        context.record('compress', 'lm-tokens', {
          target,
          scorer: lm.description,
          standIn: lm.isFixture,
          passages: passages.length,
          passagesKept: compressed.length,
          tokensBefore: before,
          tokensTarget: goal,
          tokensAfter: after,
          ratio: before ? after / before : 1,
          promptTokensBefore: full.tokens,
          promptTokensAfter: placed.tokens,
          ms: Date.now() - started,
        });
        return readPassages(context, prompts.answer, placed, params, { tokensBefore: before, tokensAfter: after, compression: before ? after / before : 1 });
      },
    };
  },
});
