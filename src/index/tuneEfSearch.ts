import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { ChunkStore } from './chunkStore.js';
import { DEFAULT_TUNING } from './defaults.js';
import type { ExactSearch } from './exactSearch.js';
import type { GraphIndex } from './graphIndex.js';
import type { EfTuning } from './manifest.js';


export interface TuneOptions {
  /** Depth whose recall must reach the target (the deepest k experiments use). */
  k?: number;
  target?: number;
  /** Held-out queries drawn from the index's own vectors. */
  sample?: number;
  seed?: number;
  maxEfSearch?: number;
  /** Measure this efSearch only (a value set by hand) instead of searching for the smallest. */
  fixed?: number;
}

/**
 * Chooses the smallest efSearch whose recall@k against exact search reaches `target`, measured on a
 * held-out sample of the index's own vectors: each sampled vector is a query whose own label is dropped
 * from both the graph's and the exact top k+1, so a query never counts finding itself (the graph has no
 * cheap delete in every library, so the sample stays in it as routing nodes). efSearch values are tried
 * from k upwards in steps of 25 %.
 */
export async function tuneEfSearch(graph: GraphIndex, exact: ExactSearch, store: ChunkStore, options: TuneOptions = {}): Promise<EfTuning> {
  const target = options.target ?? DEFAULT_TUNING.target;
  const n = graph.size;
  const sampleSize = Math.min(options.sample ?? DEFAULT_TUNING.sample, Math.max(0, n - 1));
  const k = Math.max(1, Math.min(options.k ?? DEFAULT_TUNING.k, n - 1));
  const labels = drawLabels(n, sampleSize, options.seed ?? DEFAULT_TUNING.seed);
  const queries = labels.map((label) => Float32Array.from(store.vector(label)!));
  const withoutSelf = (hits: { label: number }[], i: number) => hits.filter((hit) => hit.label !== labels[i]).slice(0, k);
  const truth = (await exact.nearest(queries, k + 1)).map((hits, i) => new Set(withoutSelf(hits, i).map((hit) => hit.label)));

  const curve: EfTuning['curve'] = [];
  {
    const measure = (efSearch: number) => {
      let sum = 0;
      let counted = 0;
      graph.search(queries, k + 1, efSearch + 1).forEach((hits, i) => {
        const expected = truth[i]!;
        if (expected.size === 0) return;
        counted++;
        sum += withoutSelf(hits, i).filter((hit) => expected.has(hit.label)).length / expected.size;
      });
      const recall = counted > 0 ? sum / counted : 1;
      curve.push({ efSearch, recall });
      return recall;
    };
    if (options.fixed !== undefined) {
      const recall = measure(options.fixed);
      return result(options.fixed, recall, recall >= target, false);
    }
    const maxEf = Math.max(k, Math.min(options.maxEfSearch ?? DEFAULT_TUNING.maxEfSearch, n));
    let efSearch = k;
    for (;;) {
      const recall = measure(efSearch);
      if (recall >= target) return result(efSearch, recall, true, true);
      if (efSearch >= maxEf) return result(efSearch, recall, false, true);
      efSearch = Math.min(maxEf, Math.ceil(efSearch * 1.25));
    }
  }

  function result(efSearch: number, recall: number, reached: boolean, tuned: boolean): EfTuning {
    return { efSearch, k, target, recall, reached, tuned, sample: sampleSize, curve, measuredAt: new Date().toISOString() };
  }
}

/** `count` distinct labels of [0, n), seeded. */
function drawLabels(n: number, count: number, seed: number): number[] {
  const rng = xoroshiro128plus(seed);
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(uniformInt(rng, 0, n - 1));
  return [...chosen].sort((a, b) => a - b);
}
