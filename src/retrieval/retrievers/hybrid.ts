import type { RegistryEntry } from '../../registry.js';
import type { RetrieverContext } from '../retrieverContext.js';
import type { HybridParams } from './hybridSchema.js';
import { reciprocalRankFusion, weightedScoreFusion } from '../fusion.js';
import { reRank } from '../toRetrievedChunks.js';
import type { Retriever } from '../types.js';

/**
 * Fuses the rankings of two (or more) retrievers, each any registered retriever spec:
 * `rrf` (reciprocal-rank fusion, constant 60) or `weighted` (min-max normalised score fusion).
 * Each child contributes its top `candidates` (default max(k, 100)).
 */
export const hybridRetriever: Pick<RegistryEntry<HybridParams, Retriever, RetrieverContext>, 'create'> = {
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
};
