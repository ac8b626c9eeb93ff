import { z } from 'zod';
import { documentLabels } from '../documentScope.js';
import { retrievers } from '../registry.js';
import { drawDistinct, seededRandom, shuffled } from '../seededRandom.js';
import { toRetrievedChunks } from '../toRetrievedChunks.js';

/**
 * Control: k distinct chunks drawn uniformly (from the query's document when `docId` is set), score 0,
 * seeded by the item id so reruns agree; a draw at k is the first k of a deeper draw (`drawDistinct`).
 */
retrievers.register({
  name: 'random',
  description: 'control: k chunks drawn uniformly at random, seeded per item',
  params: z.object({ index: z.string().min(1).describe('Index the chunks are drawn from'), seed: z.number().int().optional().describe('Seed of the draw (default: the run\'s seed)') }).strict(),
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
});
