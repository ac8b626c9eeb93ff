import { z } from 'zod';
import { retrievers } from '../registry.js';
import { denseIndexParams, denseRetriever, openDenseIndex } from './denseIndex.js';

/**
 * Brute-force dense retrieval over the stored vectors of an hnsw or exact index: the ground truth.
 * Corpus-wide queries are matrix products over blocks of vectors; a batch of queries shares one pass.
 */
retrievers.register({
  name: 'exact',
  description: 'dense retrieval by exhaustive search over the stored vectors (ground truth for HNSW recall)',
  params: z.object(denseIndexParams).strict(),
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
});
