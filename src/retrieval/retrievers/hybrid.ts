import { z } from 'zod';
import { reciprocalRankFusion, RRF_K, weightedScoreFusion } from '../fusion.js';
import { retrievers, RetrieverSpecSchema } from '../registry.js';
import { reRank } from '../toRetrievedChunks.js';
import type { Retriever } from '../types.js';

/**
 * Fuses the rankings of two (or more) retrievers, each any registered retriever spec:
 * `rrf` (reciprocal-rank fusion, constant 60) or `weighted` (min-max normalised score fusion).
 * Each child contributes its top `candidates` (default max(k, 100)).
 */
retrievers.register({
  name: 'hybrid',
  description: 'reciprocal-rank or weighted min-max score fusion of several retrievers',
  params: z
    .object({
      retrievers: z.array(RetrieverSpecSchema).min(2).describe('Two or more retriever specs whose rankings are fused'),
      fusion: z.enum(['rrf', 'weighted']).default('rrf').describe('`rrf` (reciprocal-rank fusion) or `weighted` (min-max normalised scores, weighted)'),
      weights: z.array(z.number().nonnegative()).optional().describe('One weight per child retriever (default all 1)'),
      rrfK: z.number().positive().default(RRF_K).describe('The RRF constant: a child\'s rank r contributes 1/(rrfK + r)'),
      candidates: z.number().int().positive().optional().describe('Chunks each child retriever contributes (default max(k, 100))'),
    })
    .strict()
    .refine((p) => !p.weights || p.weights.length === p.retrievers.length, {
      message: 'weights must have one entry per retriever',
      path: ['weights'],
    }),
  async create(params, context) {
    const children: Retriever[] = [];
    try {
      for (const [i, spec] of params.retrievers.entries()) {
        children.push(await context.createRetriever(spec, `retriever.retrievers[${i}]`));
      }
    } catch (error) {
      await Promise.all(children.map((child) => child.close()));
      throw error;
    }
    const weights = params.weights ?? children.map(() => 1);
    return {
      name: 'hybrid',
      async retrieve(query, k) {
        const depth = params.candidates ?? Math.max(k, 100);
        const lists = await Promise.all(children.map((child) => child.retrieve(query, depth)));
        const fused =
          params.fusion === 'rrf' ? reciprocalRankFusion(lists, weights, params.rrfK) : weightedScoreFusion(lists, weights);
        return reRank(fused.slice(0, k));
      },
      describe: () => ({
        name: 'hybrid',
        fusion: params.fusion,
        weights,
        ...(params.fusion === 'rrf' && { rrfK: params.rrfK }),
        candidates: params.candidates ?? 'max(k, 100)',
        retrievers: children.map((child) => child.describe()),
      }),
      async close() {
        await Promise.all(children.map((child) => child.close()));
      },
    };
  },
});
