import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { ChunkStore } from './chunkStore.js';
import { DEFAULT_TUNING } from './defaults.js';
import type { ExactSearch } from './exactSearch.js';
import type { TunableGraph } from './graphIndex.js';
import type { EfTuning } from '../runFiles/indexManifest.js';


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
 * The smallest efSearch whose recall@k against exact search reaches `target` (tried from k up in 25%
 * steps), queries drawn from the index's own vectors: `heldOut` labels the graph was built without
 * (build time), or else a seeded sample each dropping its own label from both top lists (`index tune`;
 * slightly optimistic, and recorded as such).
 */
export async function tuneEfSearch(
  graph: TunableGraph,
  exact: ExactSearch,
  store: ChunkStore,
  options: TuneOptions & { heldOut?: number[] } = {},
): Promise<EfTuning> {
  const target = options.target ?? DEFAULT_TUNING.target;
  const n = graph.size;
  const heldOut = options.heldOut;
  const labels = heldOut ?? drawLabels(n, Math.min(options.sample ?? DEFAULT_TUNING.sample, Math.max(0, n - 1)), options.seed ?? DEFAULT_TUNING.seed);
  const sampleSize = labels.length;
  const k = Math.max(1, Math.min(options.k ?? DEFAULT_TUNING.k, heldOut ? n : n - 1));
  const queries = labels.map((label) => Float32Array.from(store.vector(label)!));
  const extra = heldOut ? 0 : 1;
  const withoutSelf = (hits: { label: number }[], i: number) => hits.filter((hit) => hit.label !== labels[i]).slice(0, k);
  const truthHits = await exact.nearest(queries, k + extra, heldOut ? { exclude: new Set(heldOut) } : {});
  const truth = truthHits.map((hits, i) => new Set(withoutSelf(hits, i).map((hit) => hit.label)));

  const curve: EfTuning['curve'] = [];
  const measure = async (efSearch: number) => {
    let sum = 0;
    let counted = 0;
    (await graph.search(queries, k + extra, efSearch + extra)).forEach((hits, i) => {
      const expected = truth[i]!;
      if (expected.size === 0) return;
      counted++;
      sum += withoutSelf(hits, i).filter((hit) => expected.has(hit.label)).length / expected.size;
    });
    const recall = counted > 0 ? sum / counted : 1;
    curve.push({ efSearch, recall });
    return recall;
  };
  const result = (efSearch: number, recall: number, reached: boolean, tuned: boolean): EfTuning => ({
    efSearch,
    k,
    target,
    recall,
    reached,
    tuned,
    sample: sampleSize,
    protocol: heldOut ? 'held-out' : 'self-excluded',
    curve,
    measuredAt: new Date().toISOString(),
  });
  if (options.fixed !== undefined) {
    const recall = await measure(options.fixed);
    return result(options.fixed, recall, recall >= target, false);
  }
  const maxEf = Math.max(k, Math.min(options.maxEfSearch ?? DEFAULT_TUNING.maxEfSearch, n));
  let efSearch = k;
  for (;;) {
    const recall = await measure(efSearch);
    if (recall >= target) return result(efSearch, recall, true, true);
    if (efSearch >= maxEf) {
      // Target out of reach (quantised vectors cap recall): the smallest efSearch within 0.001 of the
      // best recall seen, not the most expensive one; `reached: false` says the target was missed.
      const best = Math.max(...curve.map((point) => point.recall));
      const knee = curve.find((point) => point.recall >= best - 0.001)!;
      return result(knee.efSearch, knee.recall, false, true);
    }
    efSearch = Math.min(maxEf, Math.ceil(efSearch * 1.25));
  }
}

/** The build-time sample: up to `sample` labels, at most a tenth of the index (at least one when n ≥ 2), seeded. */
export function heldOutSample(n: number, options: Pick<TuneOptions, 'sample' | 'seed'> = {}): number[] {
  const count = Math.min(options.sample ?? DEFAULT_TUNING.sample, Math.max(n >= 2 ? 1 : 0, Math.floor(n / 10)));
  return drawLabels(n, count, options.seed ?? DEFAULT_TUNING.seed);
}

/** `count` distinct labels of [0, n), seeded. */
function drawLabels(n: number, count: number, seed: number): number[] {
  const rng = xoroshiro128plus(seed);
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(uniformInt(rng, 0, n - 1));
  return [...chosen].sort((a, b) => a - b);
}
