import { z } from 'zod';
import { ConfigError } from '../../errors.js';
import { DEFAULT_HNSW } from '../../index/defaults.js';
import { distanceToScore } from '../../index/hnswGraph.js';
import type { Scored } from '../../index/topK.js';
import { documentLabels } from '../documentScope.js';
import { retrievers } from '../registry.js';
import { toRetrievedChunks } from '../toRetrievedChunks.js';
import { denseIndexParams, openDenseIndex } from './denseIndex.js';

/**
 * Approximate dense retrieval through the HNSW graph. With `query.docId` it ranks only that
 * document's chunks by exact search over their stored vectors (a few pages: no graph needed).
 */
retrievers.register({
  name: 'hnsw',
  description: 'dense retrieval: HNSW graph (hnswlib) over the index vectors; exact search within one document',
  params: z.object({ ...denseIndexParams, efSearch: z.number().int().positive().optional() }).strict(),
  async create(params, context) {
    const index = await openDenseIndex(params, context);
    const efSearch = params.efSearch ?? index.manifest.hnsw?.efSearch ?? DEFAULT_HNSW.efSearch;
    if (index.manifest.kind !== 'hnsw') {
      await index.close();
      throw new ConfigError(`${params.index}: retriever hnsw needs an hnsw index, this one is ${index.manifest.kind}`);
    }
    return {
      name: 'hnsw',
      async retrieve(query, k) {
        const vector = await index.embedQuery(query.text);
        let ranked: Scored[];
        if (query.docId) {
          ranked = index.exact().search(vector, k, documentLabels(index.store, query.docId, params.index));
        } else {
          const graph = index.hnsw();
          const n = Math.min(k, graph.getCurrentCount());
          if (n === 0) return [];
          graph.setEf(Math.max(efSearch, n));
          const { neighbors, distances } = graph.searchKnn(vector, n);
          ranked = neighbors
            .map((label, i) => ({ label, score: distanceToScore(distances[i]!) }))
            .sort((a, b) => b.score - a.score || a.label - b.label);
        }
        return toRetrievedChunks(index.store, ranked);
      },
      describe: () => ({
        name: 'hnsw',
        index: params.index,
        efSearch,
        hnsw: index.manifest.hnsw,
        embedder: index.manifest.embedder?.identity,
        corpusHash: index.manifest.corpus.contentHash,
      }),
      close: () => index.close(),
    };
  },
});
