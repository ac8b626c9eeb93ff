import { z } from 'zod';
import { documentLabels } from '../documentScope.js';
import { retrievers } from '../registry.js';
import { toRetrievedChunks } from '../toRetrievedChunks.js';
import { denseIndexParams, openDenseIndex } from './denseIndex.js';

/** Brute-force dense retrieval over the stored vectors of an hnsw or exact index: the ground truth. */
retrievers.register({
  name: 'exact',
  description: 'dense retrieval by exhaustive search over the stored vectors (ground truth for HNSW recall)',
  params: z.object(denseIndexParams).strict(),
  async create(params, context) {
    const index = await openDenseIndex(params, context);
    return {
      name: 'exact',
      async retrieve(query, k) {
        const vector = await index.embedQuery(query.text);
        const scope = query.docId ? documentLabels(index.store, query.docId, params.index) : undefined;
        return toRetrievedChunks(index.store, index.exact().search(vector, k, scope));
      },
      describe: () => ({
        name: 'exact',
        index: params.index,
        embedder: index.manifest.embedder?.identity,
        corpusHash: index.manifest.corpus.contentHash,
      }),
      close: () => index.close(),
    };
  },
});
