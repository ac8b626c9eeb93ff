import { percentileInterval, type BootstrapOptions, type Interval } from './bootstrap.js';
import { FastRandom, designEffect } from './clusters.js';
import { clusterTotals } from './clusterTotals.js';

export interface DepthCurveEstimate {
  depths: number[];
  /** Mean score at each depth over the questions scored at every depth. */
  means: number[];
  n: number;
  clusters: number;
  /** Least-squares slope of the mean score against ln k: points per e-fold of depth (× ln 2 ≈ 0.69 per doubling). */
  slope: Interval & { designEffect: number | null };
  /**
   * The depth with the highest P(best): most often the highest mean across the bootstrap resamples
   * (ties: the higher observed mean, then the shallower depth, which costs least). One definition,
   * so the best k and its P(best) always agree.
   */
  bestK: number;
  /** Per depth, the share of resamples in which it has the highest mean (ties share a resample). */
  probabilityBest: number[];
  /** Mean at the deepest k − mean at the best k (0 when the deepest is the best), paired. */
  deepestMinusBest: Interval;
  /** The deepest k is below the best and the interval of (deepest − best) excludes 0: "too much context hurts". */
  deepestBelowBest: boolean;
}

/**
 * The shape of a score-vs-depth curve from paired scores (`scores[i][j]`: question i at `depths[j]`,
 * ascending), with one cluster bootstrap shared by every figure so they agree: each resample draws
 * clusters (all their questions, at every depth) and recomputes the per-depth means, the slope over
 * ln k, which depth is best, and deepest − best. The slope is linear in the means, so it is also the
 * mean of a per-question contrast Σ_j w_j·y_ij (w_j = (ln k_j − mean ln k) / Σ (ln k − mean)²), whose
 * design effect is reported as for any mean (Miller 2024, Appendix A). Without `clusters` each
 * question is its own cluster.
 */
export function depthCurve(depths: readonly number[], scores: readonly (readonly number[])[], clusters: ArrayLike<string | number> | undefined, options: BootstrapOptions = {}): DepthCurveEstimate {
  const K = depths.length;
  if (K < 2) throw new Error(`depthCurve: needs at least two depths, got ${K}`);
  for (let j = 1; j < K; j++) if (!(depths[j]! > depths[j - 1]!)) throw new Error(`depthCurve: depths must be ascending and distinct (${depths.join(', ')})`);
  const n = scores.length;
  if (n === 0) throw new Error('depthCurve: no question was scored at every depth');
  const x = depths.map((k) => Math.log(k));
  const xMean = x.reduce((a, b) => a + b, 0) / K;
  const sxx = x.reduce((a, v) => a + (v - xMean) ** 2, 0);
  const w = x.map((v) => (v - xMean) / sxx);

  const contrast = new Float64Array(n);
  scores.forEach((row, i) => {
    if (row.length !== K) throw new Error(`depthCurve: question ${i} has ${row.length} scores for ${K} depths`);
    for (let j = 0; j < K; j++) contrast[i]! += w[j]! * row[j]!;
  });
  // Per-cluster sums at each depth, then the cluster's question count: row c is totals[c·(K+1) …].
  const columns = [...depths.map((_, j) => scores.map((row) => row[j]!)), new Float64Array(n).fill(1)];
  const { totals, clusters: C } = clusterTotals(columns, clusters);

  const means = depths.map((_, j) => scores.reduce((a, row) => a + row[j]!, 0) / n);
  const slopeOf = (m: ArrayLike<number>) => {
    let s = 0;
    for (let j = 0; j < K; j++) s += w[j]! * m[j]!;
    return s;
  };

  const resamples = options.resamples ?? 1000;
  const random = new FastRandom(options.seed ?? 0);
  const slopes = new Float64Array(resamples);
  // Each resample's per-depth means, kept to compute deepest − best once the best is known.
  const resampledMeans = new Float64Array(resamples * K);
  const wins = new Float64Array(K);
  const acc = new Float64Array(K);
  for (let r = 0; r < resamples; r++) {
    acc.fill(0);
    let count = 0;
    for (let t = 0; t < C; t++) {
      const base = random.index(C) * (K + 1);
      count += totals[base + K]!;
      for (let j = 0; j < K; j++) acc[j]! += totals[base + j]!;
    }
    let top = -Infinity;
    for (let j = 0; j < K; j++) {
      acc[j]! /= count;
      if (acc[j]! > top) top = acc[j]!;
    }
    let tied = 0;
    for (let j = 0; j < K; j++) if (acc[j] === top) tied++;
    for (let j = 0; j < K; j++) if (acc[j] === top) wins[j]! += 1 / tied;
    slopes[r] = slopeOf(acc);
    resampledMeans.set(acc, r * K);
  }
  let best = 0;
  for (let j = 1; j < K; j++) if (wins[j]! > wins[best]! || (wins[j] === wins[best] && means[j]! > means[best]!)) best = j;
  const gaps = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) gaps[r] = resampledMeans[r * K + K - 1]! - resampledMeans[r * K + best]!;
  slopes.sort();
  gaps.sort();
  const interval = (sorted: Float64Array, estimate: number): Interval => ({ estimate, ...percentileInterval(sorted, options) });
  const deepestMinusBest = interval(gaps, means[K - 1]! - means[best]!);
  return {
    depths: [...depths],
    means,
    n,
    clusters: C,
    slope: { ...interval(slopes, slopeOf(means)), designEffect: clusters ? designEffect(contrast, clusters).designEffect : null },
    bestK: depths[best]!,
    probabilityBest: [...wins].map((v) => v / resamples),
    deepestMinusBest,
    deepestBelowBest: best !== K - 1 && deepestMinusBest.ciHigh < 0,
  };
}
