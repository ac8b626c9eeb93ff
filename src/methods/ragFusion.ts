import { reciprocalRankFusion } from '../retrieval/fusion.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { passageBlock } from './passages.js';
import { stepMessages } from './prompts.js';
import { parseQuery } from './queryRewrite.js';
import { answerCall, methodFactory, readPassages } from './reader.js';
import { parseCandidates } from './sure.js';
import { answerPrompt } from './templates/answer.js';
import { queriesPrompt } from './templates/ragFusion.js';
import type { CallBound, MethodOutcome, PlanInput } from './types.js';
import { ragFusionSchema } from './ragFusionSchema.js';

/**
 * Multi-query retrieval / RAG-Fusion (Rackauckas 2024, "RAG-Fusion: a New Take on
 * Retrieval-Augmented Generation"; LangChain's MultiQueryRetriever): the model writes n search
 * queries for the question; each (and the question) retrieves k passages; the lists are fused by
 * reciprocal-rank fusion (the same RRF as the `hybrid` retriever) and the top k fused passages are
 * read. The trace has every query's list and the fused ranks. Up to n + 1 retrievals, 2 generations.
 */
export const createRagFusionMethod = methodFactory({
  ...ragFusionSchema,
  prompts: { queries: queriesPrompt, answer: answerPrompt },
  create(params, prompts) {
    const queriesMessages = (question: string) => stepMessages(prompts.queries, { question, n: params.queries });
    return {
      calls: { min: 2, max: 2 },
      planCalls: ({ item, k }: PlanInput): CallBound[] => [
        { label: 'queries', always: true, prompts: [{ messages: queriesMessages(item.question) }] },
        answerCall(prompts.answer, item, k, params),
      ],
      async run(context): Promise<MethodOutcome> {
        const { item } = context;
        const reply = await context.generate('queries', queriesMessages(item.question));
        const written = parseCandidates(reply.text, params.queries).map(parseQuery).filter(Boolean);
        // The question is searched first (its list is the run's batched one); a query equal to it is not searched twice.
        const queries = [...new Set([...(params.includeQuestion ? [item.question] : []), ...written])];
        if (queries.length === 0) queries.push(item.question);
        const lists: RetrievedChunk[][] = [];
        for (const [i, query] of queries.entries()) lists.push(await context.retrieve(query, query === item.question ? 'retrieve[question]' : `retrieve[${i + (params.includeQuestion ? 0 : 1)}]`));
        const fused = reciprocalRankFusion(lists, lists.map(() => 1), params.rrfK)
          .slice(0, context.k)
          .map((chunk, i): RetrievedChunk => ({ ...chunk, rank: i + 1 }));
        context.record('fuse', 'reciprocal-rank', {
          queries: queries.length,
          written: written.length,
          candidates: new Set(lists.flat().map((c) => c.id)).size,
          kept: fused.length,
          rrfK: params.rrfK,
          // Each kept passage: fused rank, id, RRF score and its rank in every list (– where absent).
          ranks: fused.map((c) => `${c.rank}. ${c.id} ${c.score.toFixed(5)} [${lists.map((l) => l.find((o) => o.id === c.id)?.rank ?? '–').join(',')}]`).join('; '),
        });
        return readPassages(context, prompts.answer, passageBlock(fused, params), params, { queries: queries.length, fusedCandidates: new Set(lists.flat().map((c) => c.id)).size });
      },
    };
  },
});
