import type { ChunkStore } from './chunkStore.js';
import type { HnswParams } from './manifest.js';
import type { Scored } from './topK.js';

/** A built approximate-nearest-neighbour graph opened for search. */
export interface GraphIndex {
  /** Vectors the graph holds. */
  readonly size: number;
  /** Best k for each query at search breadth `efSearch` (at least k), best first, ties by smaller label. */
  search(queries: ArrayLike<number>[], k: number, efSearch: number): Scored[][];
}

export interface GraphBuildHooks {
  signal?: AbortSignal;
  /**
   * Labels added last: `beforeHeldOut` sees the graph without them (efSearch tuning on unseen queries),
   * then they are added and the file is written.
   */
  heldOut?: number[];
  beforeHeldOut?: (graph: GraphIndex) => Promise<void>;
  /** Vectors added so far. */
  onAdded?: (added: number) => void;
}

/**
 * An HNSW implementation behind hisrag's index: builds from the chunk store's vectors (no re-embedding),
 * writes its file atomically, opens it for search. Chosen per index (`hnsw.library` in the manifest).
 */
export interface GraphLibrary {
  readonly name: HnswParams['library'];
  /** File name inside the index directory. */
  readonly file: string;
  build(store: ChunkStore, dimension: number, params: HnswParams, path: string, hooks?: GraphBuildHooks): Promise<GraphIndex>;
  /** Opens the file for search; vectors stored after it was written (a crashed add) are added in memory. */
  open(path: string, dimension: number, params: HnswParams, store: ChunkStore): GraphIndex;
  /** Adds the stored vectors the file lacks and rewrites it atomically (incremental add). */
  catchUp(path: string, dimension: number, params: HnswParams, store: ChunkStore): Promise<number>;
}
