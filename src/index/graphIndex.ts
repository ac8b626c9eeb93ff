import type { ChunkStore } from './chunkStore.js';
import type { HnswParams } from '../runFiles/indexManifest.js';
import type { Scored } from './topK.js';

/** A built approximate-nearest-neighbour graph opened for search. */
export interface GraphIndex {
  /** Vectors the graph holds. */
  readonly size: number;
  /** Best k for each query at search breadth `efSearch` (at least k), best first, ties by smaller label. */
  search(queries: ArrayLike<number>[], k: number, efSearch: number): Scored[][];
}

/** What efSearch tuning needs of a graph: its size and a search, which another thread may answer. */
export interface TunableGraph {
  readonly size: number;
  search(queries: ArrayLike<number>[], k: number, efSearch: number): Scored[][] | Promise<Scored[][]>;
}

/**
 * A graph built while its vectors arrive (an index build over a remote embedder): rows are added as
 * each batch is stored, on a thread of the graph's own, so embedding, storing and inserting overlap.
 */
export interface StreamedGraphBuild {
  /**
   * Adds rows (row-major, `dimension` floats a row) of labels `first`, `first + 1`, …, skipping the
   * held-out sample; `vectors` is handed over (unusable here afterwards). Resolves once the graph can
   * take more, so a fast producer waits for it instead of filling memory.
   */
  add(first: number, vectors: Float32Array): Promise<void>;
  /**
   * Once every row sent is in the graph: `beforeHeldOut` sees it without the held-out sample, which is
   * then added (read from the store) and the graph written to its file atomically.
   */
  finish(store: ChunkStore, beforeHeldOut?: (graph: TunableGraph) => Promise<void>): Promise<void>;
  /** Stops the build; nothing is written. */
  abort(): Promise<void>;
}

export interface StreamedGraphOptions extends Pick<GraphBuildHooks, 'onAdded'> {
  /** Labels planned (the corpus's chunk count); the graph grows if more come. */
  capacity: number;
  /** Labels added last, after `beforeHeldOut` (see GraphBuildHooks). */
  heldOut: number[];
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
  /**
   * Starts a graph fed row by row (StreamedGraphBuild), written to `path` when finished; the same vectors
   * in the same order give the same graph as `build`. Libraries without it are built after storing.
   */
  startBuild?(dimension: number, params: HnswParams, path: string, options: StreamedGraphOptions): Promise<StreamedGraphBuild>;
  /** Adds the stored vectors the file lacks and rewrites it atomically (incremental add). */
  catchUp(path: string, dimension: number, params: HnswParams, store: ChunkStore): Promise<number>;
}
