import type { RegistryEntry } from '../../registry.js';
import type { RetrieverContext } from '../retrieverContext.js';
import type { Retriever } from '../types.js';
import type { RandomParams } from './randomSchema.js';
import { documentLabels } from '../documentScope.js';
import { drawDistinct, seededRandom, shuffled } from '../seededRandom.js';
import { toRetrievedChunks } from '../toRetrievedChunks.js';

/**
 * Control: k distinct chunks drawn uniformly (from the query's document when `docId` is set), score 0,
 * seeded by the item id so reruns agree; a draw at k is the first k of a deeper draw (`drawDistinct`).
 */
export const randomRetriever: Pick<RegistryEntry<RandomParams, Retriever, RetrieverContext>, 'create'> = {
  async create(params, context) {
    const index = await context.openIndex(params.index);
    const seed = params.seed ?? context.seed;
    const total = index.store.count();
    return {
      name: 'random',
      async retrieve(query, k) {
        const random = seededRandom(seed, query.itemId ?? query.text);
        let labels: number[];
        if (query.docId) {
          const scope = documentLabels(index.store, query.docId, params.index);
          labels = shuffled(random, scope).slice(0, k);
        } else {
          labels = drawDistinct(random, total, k);
        }
        return toRetrievedChunks(index.store, labels.map((label) => ({ label, score: 0 })));
      },
      describe: () => ({ name: 'random', index: params.index, seed, corpusHash: index.manifest.corpus.contentHash }),
      close: () => index.close(),
    };
  },
};
