import hnswlib from 'hnswlib-node';
import { rename, rm } from 'node:fs/promises';
import type { ChunkStore } from './chunkStore.js';
import type { HnswParams } from '../runFiles/indexManifest.js';
import { byScore, type Scored } from './topK.js';

const { HierarchicalNSW } = hnswlib;
/** What hnswlib itself needs of an index's HNSW parameters. */
type HnswlibParams = Pick<HnswParams, 'space' | 'M' | 'efConstruction' | 'efSearch' | 'randomSeed'>;
export type HnswGraph = InstanceType<typeof HierarchicalNSW>;

/** A new, empty hnswlib graph sized for `maxElements` labels. */
export function createHnswGraph(dimension: number, params: HnswlibParams, maxElements: number): HnswGraph {
  const graph = new HierarchicalNSW(params.space, dimension);
  graph.initIndex({
    maxElements: Math.max(1, maxElements),
    m: params.M,
    efConstruction: params.efConstruction,
    randomSeed: params.randomSeed,
  });
  graph.setEf(params.efSearch);
  return graph;
}

export function loadHnswGraph(path: string, dimension: number, params: HnswlibParams): HnswGraph {
  const graph = new HierarchicalNSW(params.space, dimension);
  graph.readIndexSync(path);
  graph.setEf(params.efSearch);
  return graph;
}

/** Writes beside `path` and renames into place, so a reader never sees half a file. */
export async function saveAtomically(path: string, write: (tmp: string) => unknown): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    await write(tmp);
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

export function saveHnswGraph(graph: HnswGraph, path: string): Promise<void> {
  return saveAtomically(path, (tmp) => graph.writeIndex(tmp));
}

/** hnswlib distances → similarity scores: 1 − distance is the dot product ('ip') or cosine ('cosine'). */
export function distanceToScore(distance: number): number {
  return 1 - distance;
}

/** The graph's best `k` for one query at search breadth `efSearch` (at least k), best first; ties by smaller label. */
export function searchGraph(graph: HnswGraph, vector: number[], k: number, efSearch: number): Scored[] {
  const n = Math.min(k, graph.getCurrentCount());
  if (n <= 0) return [];
  graph.setEf(Math.max(efSearch, n));
  const { neighbors, distances } = graph.searchKnn(vector, n);
  return neighbors
    .map((label, i) => ({ label, score: distanceToScore(distances[i]!) }))
    .sort(byScore);
}

/**
 * Adds the stored vectors the graph does not hold yet (labels ≥ its count), growing it as needed: an
 * incremental add, or recovery after a crash between committing new chunks and rewriting `hnsw.bin`.
 */
export function catchUpGraph(graph: HnswGraph, store: ChunkStore): number {
  const have = graph.getCurrentCount();
  const want = store.countVectors();
  if (want <= have) return 0;
  if (graph.getMaxElements() < want) graph.resizeIndex(want);
  for (let label = have; label < want; label++) graph.addPoint(Array.from(store.vector(label)!), label);
  return want - have;
}
