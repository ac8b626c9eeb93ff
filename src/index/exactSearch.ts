import type { ChunkStore } from './chunkStore.js';
import type { HnswParams } from '../runFiles/indexManifest.js';
import type { ScoreMatrix } from './scoreMatrix.js';
import { TopK, type Scored } from './topK.js';
import { dot, norm, normalized } from './vectorMath.js';

export interface ExactSearchOptions {
  /** Vectors per block (default: 64 MiB of float32 a block, 16,384 rows at 1024-d). */
  blockRows?: number;
  /**
   * Bytes of blocks kept in memory between searches (default 2 GiB). Blocks past it are read from the
   * store again for each search, so memory stays bounded whatever the corpus size.
   */
  residentBytes?: number;
  /** Queries per matrix product (bounds the score buffer: queryBatch × blockRows floats). */
  queryBatch?: number;
  /** onnxruntime threads (default: all cores). */
  threads?: number;
}

export interface NearestOptions {
  /** Labels never returned (held-out queries when measuring recall). */
  exclude?: ReadonlySet<number>;
}

interface Block {
  start: number;
  rows: number;
  data: Float32Array;
  /** Row norms ('cosine' only). */
  norms?: Float32Array;
}

const DEFAULT_BLOCK_BYTES = 64 * 2 ** 20;
const DEFAULT_RESIDENT_BYTES = 2 * 2 ** 30;

/**
 * Brute-force nearest neighbours over the stored vectors (dot product for 'ip', or cosine): the ground
 * truth for HNSW recall, and the ranker for document-scoped retrieval. Corpus-wide search goes block by
 * block in label order, one matrix product (onnxruntime Gemm) per block and a streaming top-k per query,
 * so memory holds one block (plus those within `residentBytes`) whatever the corpus size.
 */
export class ExactSearch {
  readonly blockRows: number;
  private readonly residentBytes: number;
  private readonly queryBatch: number;
  private matrix?: Promise<ScoreMatrix>;
  private resident = new Map<number, Block>();
  private residentCount = -1;
  private scratch?: Float32Array;

  constructor(
    private readonly store: ChunkStore,
    readonly dimension: number,
    readonly space: HnswParams['space'],
    private readonly options: ExactSearchOptions = {},
  ) {
    this.blockRows = Math.max(1, options.blockRows ?? Math.floor(DEFAULT_BLOCK_BYTES / (4 * dimension)));
    this.residentBytes = options.residentBytes ?? DEFAULT_RESIDENT_BYTES;
    this.queryBatch = Math.max(1, options.queryBatch ?? 256);
  }

  /** Best k among `labels` only (document-scoped retrieval: reads just those rows; a JS loop is enough for a few pages). */
  search(query: ArrayLike<number>, k: number, labels: number[]): Scored[] {
    const q = this.prepare(query);
    const top = new TopK(k);
    for (const label of labels) {
      const vector = this.store.vector(label);
      if (!vector) continue;
      const d = dot(q, vector);
      top.push(label, this.space === 'cosine' ? divideByNorm(d, norm(vector)) : d);
    }
    return top.sorted();
  }

  /** Best k over all stored vectors for each query: one pass over the vectors per `queryBatch` queries. */
  async nearest(queries: ArrayLike<number>[], k: number, options: NearestOptions = {}): Promise<Scored[][]> {
    const results: Scored[][] = [];
    for (let from = 0; from < queries.length; from += this.queryBatch) {
      results.push(...(await this.nearestBatch(queries.slice(from, from + this.queryBatch), k, options.exclude)));
    }
    return results;
  }

  private async nearestBatch(queries: ArrayLike<number>[], k: number, exclude?: ReadonlySet<number>): Promise<Scored[][]> {
    const d = this.dimension;
    const q = queries.length;
    const packed = new Float32Array(q * d);
    queries.forEach((query, i) => {
      if (query.length !== d) throw new Error(`exact search: query ${i} has ${query.length} dimensions, the index ${d}`);
      packed.set(this.prepare(query), i * d);
    });
    const tops = queries.map(() => new TopK(k));
    if (q === 0 || k <= 0) return tops.map((top) => top.sorted());
    // Imported on the first search: opening an index (an hnsw one's plan, a dry run) loads no onnx-proto or onnxruntime.
    const matrix = await (this.matrix ??= import('./scoreMatrix.js').then(({ createScoreMatrix }) => createScoreMatrix(d, this.options.threads)));
    const total = this.store.countVectors();
    if (total !== this.residentCount) {
      // Vectors were appended since the blocks were read: the last block may have grown.
      this.resident.clear();
      this.residentCount = total;
    }
    for (let start = 0; start < total; start += this.blockRows) {
      const block = this.block(start, Math.min(this.blockRows, total - start));
      const scores = await matrix.multiply(packed, q, block.data, block.rows);
      for (let i = 0; i < q; i++) collect(tops[i]!, scores, i * block.rows, block, exclude);
    }
    return tops.map((top) => top.sorted());
  }

  /** A block of rows: resident when within the memory budget, otherwise read into a reused scratch buffer. */
  private block(start: number, rows: number): Block {
    const cached = this.resident.get(start);
    if (cached) return cached;
    const bytes = rows * this.dimension * 4;
    const keep = (this.resident.size + 1) * this.blockRows * this.dimension * 4 <= this.residentBytes;
    let data: Float32Array;
    if (keep) {
      data = new Float32Array(rows * this.dimension);
    } else {
      if (!this.scratch || this.scratch.byteLength < bytes) this.scratch = new Float32Array(this.blockRows * this.dimension);
      data = this.scratch;
    }
    this.store.readVectorBlock(start, rows, this.dimension, data);
    let norms: Float32Array | undefined;
    if (this.space === 'cosine') {
      norms = new Float32Array(rows);
      for (let r = 0; r < rows; r++) norms[r] = norm(data, r * this.dimension, this.dimension);
    }
    const block = { start, rows, data, norms };
    if (keep) this.resident.set(start, block);
    return block;
  }

  private prepare(query: ArrayLike<number>): Float32Array {
    return this.space === 'cosine' ? normalized(query) : Float32Array.from(query);
  }

  /** Releases the onnxruntime session and the resident blocks. */
  async close(): Promise<void> {
    this.resident.clear();
    this.scratch = undefined;
    const matrix = this.matrix;
    this.matrix = undefined;
    if (matrix) await (await matrix).close();
  }
}

function divideByNorm(dotProduct: number, rowNorm: number): number {
  return rowNorm > 0 ? dotProduct / rowNorm : 0;
}

/** Streams one query's row of block scores into its top-k (a threshold check first: most rows lose). */
function collect(top: TopK, scores: Float32Array, offset: number, block: Block, exclude?: ReadonlySet<number>): void {
  let threshold = top.threshold;
  const { rows, start, norms } = block;
  for (let r = 0; r < rows; r++) {
    const raw = scores[offset + r]!;
    const score = norms ? divideByNorm(raw, norms[r]!) : raw;
    if (score < threshold) continue;
    const label = start + r;
    if (exclude?.has(label)) continue;
    top.push(label, score);
    threshold = top.threshold;
  }
}
