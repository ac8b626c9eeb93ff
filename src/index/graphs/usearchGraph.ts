import { rm } from 'node:fs/promises';
import usearch from 'usearch';
import type { ChunkStore } from '../chunkStore.js';
import type { GraphIndex, GraphLibrary } from '../graphIndex.js';
import { USEARCH_FILE, type HnswParams } from '../../runFiles/indexManifest.js';
import { byScore, type Scored } from '../topK.js';
import { saveAtomically } from '../hnswGraph.js';

const { Index } = usearch;
type UsearchIndex = InstanceType<typeof Index>;

/** Vectors per `add` call: usearch spreads each call over all cores. */
const ADD_BLOCK = 4096;

/**
 * usearch's index for these params. The metric is always `cos`: on hisrag's unit vectors ('ip') it ranks
 * exactly like the dot product, and usearch's i8 quantization expects it (values scaled to [-1, 1]).
 * usearch fixes the search breadth when an index object is made, so one object per efSearch is kept.
 */
function newIndex(dimension: number, params: HnswParams, efSearch: number): UsearchIndex {
  return new Index({
    dimensions: dimension,
    metric: 'cos' as never,
    quantization: (params.quantization ?? 'i8') as never,
    connectivity: params.M,
    expansion_add: params.efConstruction,
    expansion_search: efSearch,
    multi: false,
  });
}

/** Adds stored vectors of labels [from, to) except `skip`, in blocks (each block multi-threaded). */
function addStored(
  index: UsearchIndex,
  store: ChunkStore,
  dimension: number,
  from: number,
  to: number,
  onAdded?: (added: number) => void,
  signal?: AbortSignal,
  skip: ReadonlySet<number> = new Set(),
): number {
  const block = new Float32Array(ADD_BLOCK * dimension);
  let added = 0;
  for (let start = from; start < to; start += ADD_BLOCK) {
    signal?.throwIfAborted();
    const rows = Math.min(ADD_BLOCK, to - start);
    store.readVectorBlock(start, rows, dimension, block);
    const keys: bigint[] = [];
    let kept = 0;
    for (let i = 0; i < rows; i++) {
      if (skip.has(start + i)) continue;
      if (kept !== i) block.copyWithin(kept * dimension, i * dimension, (i + 1) * dimension);
      keys.push(BigInt(start + i));
      kept++;
    }
    if (kept > 0) index.add(BigUint64Array.from(keys), block.subarray(0, kept * dimension), 0);
    added += kept;
    onAdded?.(added);
  }
  return added;
}

/**
 * With i8 vectors in the graph, usearch's own distances cap recall@100 near 0.98 on 1024-d clustered
 * vectors (measured: 0.981 at any efSearch, against 0.999 for f16), so the graph proposes
 * RERANK × k candidates (at least k + 40) and they are re-scored with the stored vectors (f16, or i8
 * with a per-vector step, which alone ranks like f32 at 0.998): 0.996 at 1.5 k.
 */
export const RERANK = 1.5;

/** Re-scores candidate lists with the stored vectors (dot product, or cosine for the 'cosine' space), best k first. */
function rerank(store: ChunkStore, space: HnswParams['space'], queries: ArrayLike<number>[], lists: Scored[][], k: number): Scored[][] {
  return lists.map((hits, q) => {
    if (hits.length === 0) return hits;
    const scores = store.scoreStored(hits.map((hit) => hit.label), Float32Array.from(queries[q]!), space === 'cosine');
    return hits.map((hit, i) => ({ label: hit.label, score: scores[i]! })).sort(byScore).slice(0, k);
  });
}

/**
 * A graph served through one usearch object per efSearch asked for (`indexAt` makes it: a view of the
 * saved file, or a copy in memory); `rescore`: candidates re-scored with the stored vectors (see RERANK).
 */
function served(dimension: number, params: HnswParams, store: ChunkStore, indexAt: (efSearch: number) => UsearchIndex, rescore: boolean): GraphIndex {
  const views = new Map<number, UsearchIndex>();
  const at = (efSearch: number) => {
    let view = views.get(efSearch);
    if (!view) views.set(efSearch, (view = indexAt(efSearch)));
    return view;
  };
  const size = at(params.efSearch).size();
  return {
    size,
    search(queries, wanted, efSearch) {
      if (rescore && wanted > 0) {
        // At small k the candidate list gets a floor: the i8 order is least reliable among the very best.
        const candidates = Math.max(Math.ceil(wanted * RERANK), wanted + 40);
        return rerank(store, params.space, queries, searchFor(queries, candidates, Math.max(candidates, Math.ceil(efSearch * RERANK))), wanted);
      }
      return searchFor(queries, wanted, efSearch);
    },
  };

  function searchFor(queries: ArrayLike<number>[], k: number, efSearch: number): Scored[][] {
    const n = Math.min(k, size);
    if (queries.length === 0) return [];
    if (n <= 0) return queries.map(() => []);
    const index = at(Math.max(efSearch, n));
    const packed = new Float32Array(queries.length * dimension);
    queries.forEach((query, i) => packed.set(query, i * dimension));
    // One call for the batch: usearch searches the queries on all cores (one thread for a single query).
    const result = index.search(packed, n, queries.length === 1 ? 1 : 0) as unknown as {
      keys: BigUint64Array;
      distances: Float32Array;
      counts?: BigUint64Array;
    };
    return queries.map((_, q) => {
      const count = result.counts ? Number(result.counts[q]) : result.keys.length;
      const hits = Array.from({ length: count }, (_, i) => ({ label: Number(result.keys[q * n + i]), score: 1 - result.distances[q * n + i]! }));
      return hits.sort(byScore);
    });
  }
}

/** The saved file viewed memory-mapped, one view per efSearch. */
function mapped(path: string, dimension: number, params: HnswParams, store: ChunkStore): GraphIndex {
  const view = (efSearch: number) => {
    const index = newIndex(dimension, params, efSearch);
    index.view(path);
    return index;
  };
  return served(dimension, params, store, view, (params.quantization ?? 'i8') === 'i8');
}

/**
 * usearch (HNSW with f16/i8 vectors in the graph, multi-threaded builds, memory-mapped serving): the
 * index choice for corpora the size of Chinese Wikipedia (see the README's scale table).
 */
export const usearchGraph: GraphLibrary = {
  name: 'usearch',
  file: USEARCH_FILE,
  async build(store, dimension, params, path, hooks = {}) {
    const count = store.countVectors();
    const heldOut = hooks.heldOut ?? [];
    const index = newIndex(dimension, params, params.efSearch);
    const added = addStored(index, store, dimension, 0, count, hooks.onAdded, hooks.signal, new Set(heldOut));
    if (hooks.beforeHeldOut) {
      // Searched in memory at each efSearch tuning asks for: a copy per efSearch is not possible before saving,
      // so the graph without the held-out vectors is saved and viewed.
      await saveAtomically(`${path}.partial`, (tmp) => index.save(tmp));
      await hooks.beforeHeldOut(mapped(`${path}.partial`, dimension, params, store));
      await rm(`${path}.partial`, { force: true });
    }
    if (heldOut.length > 0) {
      const vectors = new Float32Array(heldOut.length * dimension);
      heldOut.forEach((label, i) => vectors.set(store.vector(label)!, i * dimension));
      index.add(BigUint64Array.from(heldOut.map(BigInt)), vectors, 0);
    }
    hooks.onAdded?.(added + heldOut.length);
    await saveAtomically(path, (tmp) => index.save(tmp));
    return mapped(path, dimension, params, store);
  },
  open(path, dimension, params, store) {
    const probe = newIndex(dimension, params, params.efSearch);
    probe.view(path);
    const want = store.countVectors();
    if (probe.size() >= want) return mapped(path, dimension, params, store);
    // A crashed add left vectors the file lacks: serve from memory, caught up (each efSearch's copy alike).
    const have = probe.size();
    const caughtUp = (efSearch: number) => {
      const copy = newIndex(dimension, params, efSearch);
      copy.load(path);
      addStored(copy, store, dimension, have, want);
      return copy;
    };
    return served(dimension, params, store, caughtUp, false);
  },
  async catchUp(path, dimension, params, store) {
    const index = newIndex(dimension, params, params.efSearch);
    index.load(path);
    const have = index.size();
    const want = store.countVectors();
    if (want <= have) return 0;
    addStored(index, store, dimension, have, want);
    await saveAtomically(path, (tmp) => index.save(tmp));
    return want - have;
  },
};
