import type { Bm25Params } from './manifest.js';

/**
 * Defaults chosen with `scripts/bench-retrieval.ts` on 300k random unit vectors (64-d, the hardest case:
 * no low-dimensional structure): efSearch 1536 gives recall@100 0.996 and recall@10 1.000 against exact
 * search at ~200 queries/s; efSearch 1024 gave only 0.987. Real embeddings need less; lower efSearch per
 * retriever (`efSearch` param) where speed matters more than the last percent of recall.
 */
export const DEFAULT_HNSW = { M: 32, efConstruction: 200, efSearch: 1536, randomSeed: 100 } as const;
export const DEFAULT_BM25: Bm25Params = { k1: 0.9, b: 0.4, bigrams: true, simplify: true, hmm: true };
