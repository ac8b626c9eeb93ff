import { z } from 'zod';
import { goldChunks } from '../goldChunks.js';
import { retrievers } from '../registry.js';
import { reRank } from '../toRetrievedChunks.js';

/**
 * Control: returns the gold evidence (chunk ids, or the pages of the query's document) and nothing
 * else, at most k, each with score 1 — retrieval with no missing evidence and no distraction.
 */
retrievers.register({
  name: 'oracle',
  description: 'control: the gold evidence chunks or pages of each item (score 1), nothing else',
  params: z.object({ index: z.string().min(1).describe('Index whose chunks are searched for the gold evidence') }).strict(),
  async create(params, context) {
    const index = await context.openIndex(params.index);
    return {
      name: 'oracle',
      async retrieve(query, k) {
        const gold = goldChunks(index.store, query, params.index).slice(0, k);
        return reRank(gold.map(({ label: _label, ...chunk }) => ({ ...chunk, score: 1 })));
      },
      describe: () => ({ name: 'oracle', index: params.index, corpusHash: index.manifest.corpus.contentHash }),
      close: () => index.close(),
    };
  },
});
