import type { Bm25Params } from '../runFiles/indexManifest.js';

/**
 * Chosen with scripts/bench-retrieval.ts and scripts/bench-index-recall.ts (310k poems, 64-d fixture):
 * efSearch 3072 gave recall@100 0.993 at ~150 queries/s. It is only what an index records until its
 * build-time tuning (DEFAULT_TUNING) has run.
 */
export const DEFAULT_HNSW = { M: 32, efConstruction: 200, efSearch: 3072, randomSeed: 100 } as const;
/**
 * usearch graphs (`--graph usearch`, for millions of chunks): M 16 / efConstruction 200, as in the
 * README's figures. Cheaper builds left a weak graph at 1M vectors (efConstruction 160: 4× the query
 * time for 0.99); an index is built once and queried by every run, so the stronger graph is the default.
 */
export const DEFAULT_USEARCH = { M: 16, efConstruction: 200 } as const;

/** The build defaults of a graph library: M and efConstruction. */
export function graphDefaults(library: 'hnswlib' | 'usearch' | undefined): { M: number; efConstruction: number } {
  return library === 'usearch' ? DEFAULT_USEARCH : { M: DEFAULT_HNSW.M, efConstruction: DEFAULT_HNSW.efConstruction };
}

export const DEFAULT_BM25: Bm25Params = { k1: 0.9, b: 0.4, bigrams: true, simplify: true, hmm: true };

/**
 * efSearch tuning at build time: the smallest efSearch whose recall@k (k = 100, the deepest k of the
 * study) against exact search reaches 0.99 on 200 held-out vectors of the index itself.
 */
export const DEFAULT_TUNING = { k: 100, target: 0.99, sample: 200, seed: 1, maxEfSearch: 8192 } as const;

/**
 * Stored vectors in single precision, what exact search ranks: f16 (half the bytes, relative error ≤ 2⁻¹¹)
 * reorders near-ties — 8 of 200 top-10 lists differed from an f32 ranking of the same vectors, every swap
 * within 7e-5 — so it is a choice (`--vectors f16`), as `i8` (a quarter) is for corpora of millions of chunks.
 * Equal scores rank by the smaller label (insertion order), in every encoding.
 */
export const DEFAULT_VECTOR_ENCODING = 'f32' as const;

/** lancedb: the constants live here, beside the other defaults, so that `hisrag --help` reads them without loading zod. */
/** At or above this many rows `vectorIndex: auto` builds IVF-PQ; below it, exact search is fast enough. */
export const LANCEDB_IVF_PQ_MIN_ROWS = 50_000;

export const DEFAULT_LANCEDB = {
  uri: 'lancedb',
  table: 'chunks',
  nprobes: 32,
  refineFactor: 10,
} as const;
