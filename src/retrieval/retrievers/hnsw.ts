import { z } from 'zod';
import { ConfigError } from '../../errors.js';
import { DEFAULT_HNSW } from '../../index/defaults.js';
import { retrievers } from '../registry.js';
import { denseIndexParams, denseRetriever, openDenseIndex } from './denseIndex.js';

/**
 * Approximate dense retrieval through the HNSW graph, at the efSearch tuned for the index at build time
 * (`hisrag index tune`) unless the config sets one. With `query.docId` it ranks only that document's
 * chunks by exact search over their stored vectors (a few pages: no graph needed).
 */
retrievers.register({
  name: 'hnsw',
  description: 'dense retrieval: HNSW graph (hnswlib or usearch, as built) over the index vectors; exact search within one document',
  params: z.object({ ...denseIndexParams, efSearch: z.number().int().positive().optional().describe('HNSW search breadth (higher: better recall, slower); default: the value tuned for the index at build time') }).strict(),
  async create(params, context) {
    const index = await openDenseIndex(params, context);
    const efSearch = params.efSearch ?? index.manifest.hnsw?.efSearch ?? DEFAULT_HNSW.efSearch;
    if (index.manifest.kind !== 'hnsw') {
      await index.close();
      throw new ConfigError(`${params.index}: retriever hnsw needs an hnsw index, this one is ${index.manifest.kind}`);
    }
    const corpusWide = async (vectors: number[][], k: number) => (await index.graph()).search(vectors, k, efSearch);
    return denseRetriever('hnsw', index, corpusWide, () => ({
      name: 'hnsw',
      index: params.index,
      efSearch,
      // Recall against exact search measured for the index's own efSearch (null when overridden here).
      efSearchRecall: params.efSearch === undefined ? (index.manifest.hnsw?.tuning ?? null) : null,
      hnsw: index.manifest.hnsw,
      embedder: index.manifest.embedder?.identity,
      corpusHash: index.manifest.corpus.contentHash,
    }));
  },
});
