import type { RegistryEntry } from '../../registry.js';
import type { RetrieverContext } from '../retrieverContext.js';
import type { Retriever } from '../types.js';
import type { ExactParams } from './exactSchema.js';
import { denseRetriever, openDenseIndex } from './denseIndex.js';

/**
 * Brute-force dense retrieval over the stored vectors of an hnsw or exact index: the ground truth.
 * Corpus-wide queries are matrix products over blocks of vectors; a batch of queries shares one pass.
 */
export const exactRetriever: Pick<RegistryEntry<ExactParams, Retriever, RetrieverContext>, 'create'> = {
  async create(params, context) {
    const index = await openDenseIndex(params, context);
    const corpusWide = (vectors: number[][], k: number) => index.exact().nearest(vectors, k);
    return denseRetriever('exact', index, corpusWide, () => ({
      name: 'exact',
      index: params.index,
      embedder: index.manifest.embedder?.identity,
      corpusHash: index.manifest.corpus.contentHash,
    }));
  },
};
