import type { Bm25Params } from './manifest.js';

/**
 * Defaults chosen with `scripts/bench-retrieval.ts` (300k random unit vectors, 64-d: no
 * low-dimensional structure) and `scripts/bench-index-recall.ts` (310k Tang and Song poems embedded
 * with the 64-d fixture model, short first-line queries). With M 32 / efConstruction 200, recall@100
 * against exact search was 0.996 (random) but 0.972 (poems) at efSearch 1536; efSearch 3072 gives
 * 0.993 on the poems at ~150 queries/s. Since then efSearch is tuned per index at build time
 * (DEFAULT_TUNING below; on 50k clustered 1024-d vectors a few hundred reach 0.99, a tenth of the cost
 * of 3072): `efSearch` here is only what an index records until its tuning has run.
 */
export const DEFAULT_HNSW = { M: 32, efConstruction: 200, efSearch: 3072, randomSeed: 100 } as const;
/**
 * usearch graphs (`--graph usearch`, the choice for millions of chunks) get their own build defaults: the
 * M 16 / efConstruction 200 of every usearch figure in the README (50k and 200k clustered 1024-d
 * vectors: efSearch 157–309 reaches recall@100 0.99). Cheaper builds did not hold at 1M: M 24 /
 * efConstruction 96 (with int8 rows scaled per vector, an experiment not kept) built 1,316 vectors/s on
 * 2 cores but needed efSearch 8192 for 0.99 (0.87 at 100): insertions made while each cluster still
 * has few members leave a weak graph. At 1M (2 cores, `topics` vectors) 200 builds 1,382 vectors/s and
 * needs efSearch 757; `--ef-construction 160` builds 1,760/s but needs 2,892 (4× the query time). An
 * index is built once and queried by every run, so the default keeps the stronger graph. The README's
 * scale section has the figures.
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
 * Stored vectors in half precision: half the bytes of f32 with rankings unchanged in practice (relative
 * error ≤ 2⁻¹¹). `i8` (a quarter) is the choice for corpora of millions of chunks; `f32` stays available.
 */
export const DEFAULT_VECTOR_ENCODING = 'f16' as const;

/** lancedb: the constants live here, beside the other defaults, so that `hisrag --help` reads them without loading zod. */
/** At or above this many rows `vectorIndex: auto` builds IVF-PQ; below it, exact search is fast enough. */
export const LANCEDB_IVF_PQ_MIN_ROWS = 50_000;

export const DEFAULT_LANCEDB = {
  uri: 'lancedb',
  table: 'chunks',
  nprobes: 32,
  refineFactor: 10,
} as const;
