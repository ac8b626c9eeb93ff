import type { Bm25Params } from './manifest.js';

/**
 * Defaults chosen with `scripts/bench-retrieval.ts` (300k random unit vectors, 64-d: no
 * low-dimensional structure) and `scripts/bench-index-recall.ts` (310k Tang and Song poems embedded
 * with the 64-d fixture model, short first-line queries). With M 32 / efConstruction 200, recall@100
 * against exact search was 0.996 (random) but 0.972 (poems) at efSearch 1536; efSearch 3072 gives
 * 0.993 on the poems at ~150 queries/s, so that is the default (recall@100 ≥ 0.99 on both). Lower
 * `efSearch` per retriever where speed matters more than the last percent of recall.
 */
export const DEFAULT_HNSW = { M: 32, efConstruction: 200, efSearch: 3072, randomSeed: 100 } as const;
export const DEFAULT_BM25: Bm25Params = { k1: 0.9, b: 0.4, bigrams: true, simplify: true, hmm: true };
