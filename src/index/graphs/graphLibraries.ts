import type { GraphLibrary } from '../graphIndex.js';
import type { HnswParams } from '../../runFiles/indexManifest.js';

/** hnswlib-node for an HNSW index unless the manifest names another library. */
export async function graphLibrary(name: HnswParams['library'] = 'hnswlib'): Promise<GraphLibrary> {
  // Loaded on use: each is a native addon.
  if (name === 'usearch') return (await import('./usearchGraph.js')).usearchGraph;
  return (await import('./hnswlibGraph.js')).hnswlibGraph;
}
