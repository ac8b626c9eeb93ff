import type { RegistryEntry } from '../../registry.js';
import type { RetrieverContext } from '../retrieverContext.js';
import type { Retriever } from '../types.js';
import type { HnswParams } from './hnswSchema.js';
import { ConfigError } from '../../errors.js';
import { DEFAULT_HNSW } from '../../index/defaults.js';
import { denseRetriever, openDenseIndex } from './denseIndex.js';

/**
 * Approximate dense retrieval through the HNSW graph, at the efSearch tuned for the index at build time
 * (`hisrag index tune`) unless the config sets one. With `query.docId` it ranks only that document's
 * chunks by exact search over their stored vectors (a few pages: no graph needed).
 */
export const hnswRetriever: Pick<RegistryEntry<HnswParams, Retriever, RetrieverContext>, 'create'> = {
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
};
