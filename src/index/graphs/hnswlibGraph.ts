import type { GraphIndex, GraphLibrary } from '../graphIndex.js';
import { catchUpGraph, createHnswGraph, loadHnswGraph, saveHnswGraph, searchGraph, type HnswGraph } from '../hnswGraph.js';
import { HNSW_FILE } from '../../runFiles/indexManifest.js';
import { startHnswlibStream } from './hnswlibStream.js';

function asGraphIndex(graph: HnswGraph): GraphIndex {
  return {
    get size() {
      return graph.getCurrentCount();
    },
    search: (queries, k, efSearch) => queries.map((query) => searchGraph(graph, Array.from(query), k, efSearch)),
  };
}

/** hnswlib-node: fp32 vectors in the graph, one thread while building, the file read into memory to serve. */
export const hnswlibGraph: GraphLibrary = {
  name: 'hnswlib',
  file: HNSW_FILE,
  async build(store, dimension, params, path, hooks = {}) {
    const count = store.countVectors();
    const graph = createHnswGraph(dimension, params, count);
    const heldOut = new Set(hooks.heldOut ?? []);
    let added = 0;
    for (const [label, vector] of store.vectors()) {
      if (heldOut.has(label)) continue;
      graph.addPoint(Array.from(vector), label);
      if (++added % 1000 === 0) {
        hooks.signal?.throwIfAborted();
        hooks.onAdded?.(added);
      }
    }
    await hooks.beforeHeldOut?.(asGraphIndex(graph));
    for (const label of heldOut) graph.addPoint(Array.from(store.vector(label)!), label);
    hooks.onAdded?.(added + heldOut.size);
    await saveHnswGraph(graph, path);
    return asGraphIndex(graph);
  },
  startBuild: startHnswlibStream,
  open(path, dimension, params, store) {
    const graph = loadHnswGraph(path, dimension, params);
    catchUpGraph(graph, store);
    return asGraphIndex(graph);
  },
  async catchUp(path, dimension, params, store) {
    const graph = loadHnswGraph(path, dimension, params);
    const added = catchUpGraph(graph, store);
    await saveHnswGraph(graph, path);
    return added;
  },
};
