import type { ChunkStore } from './chunkStore.js';
import type { HnswParams } from './manifest.js';
import { TopK, type Scored } from './topK.js';
import { dot, norm, normalized } from './vectorMath.js';

/**
 * Brute-force nearest neighbours over the stored vectors: the ground truth for HNSW recall and the
 * ranker for document-scoped dense retrieval (a few pages, where a graph is pointless).
 * Scores use the index's space: dot product ('ip', vectors already unit length) or cosine.
 * Corpus-wide search loads all vectors once into one Float32Array (N × dim × 4 bytes); scoped search
 * reads only the requested rows.
 */
export class ExactSearch {
  private matrix: Float32Array | undefined;
  private rowNorms: Float32Array | undefined;

  constructor(
    private readonly store: ChunkStore,
    readonly dimension: number,
    readonly space: HnswParams['space'],
  ) {}

  /** Loads every stored vector into memory (done lazily by the first corpus-wide search). */
  load(): void {
    if (this.matrix) return;
    const n = this.store.countVectors();
    const matrix = new Float32Array(n * this.dimension);
    const norms = new Float32Array(n);
    for (const [label, vector] of this.store.vectors()) {
      matrix.set(vector, label * this.dimension);
      norms[label] = norm(vector);
    }
    this.matrix = matrix;
    this.rowNorms = norms;
  }

  /** Best k over all vectors, or only over `labels` when given. */
  search(query: ArrayLike<number>, k: number, labels?: number[]): Scored[] {
    return this.searchMany([query], k, labels)[0]!;
  }

  /** One pass over the vectors for many queries (benchmarks: ground truth for a query set). */
  searchMany(queries: ArrayLike<number>[], k: number, labels?: number[]): Scored[][] {
    const prepared = queries.map((q) => (this.space === 'cosine' ? normalized(q) : Float32Array.from(q)));
    const tops = prepared.map(() => new TopK(k));
    const score = (q: Float32Array, vector: ArrayLike<number>, offset: number, rowNorm: number) => {
      const d = dot(q, vector, offset);
      return this.space === 'cosine' ? (rowNorm > 0 ? d / rowNorm : 0) : d;
    };
    if (labels) {
      for (const label of labels) {
        const vector = this.store.vector(label);
        if (!vector) continue;
        const rowNorm = this.space === 'cosine' ? norm(vector) : 1;
        prepared.forEach((q, i) => tops[i]!.push(label, score(q, vector, 0, rowNorm)));
      }
    } else {
      this.load();
      const matrix = this.matrix!;
      const n = this.rowNorms!.length;
      for (let label = 0; label < n; label++) {
        const offset = label * this.dimension;
        const rowNorm = this.rowNorms![label]!;
        prepared.forEach((q, i) => tops[i]!.push(label, score(q, matrix, offset, rowNorm)));
      }
    }
    return tops.map((top) => top.sorted());
  }
}
