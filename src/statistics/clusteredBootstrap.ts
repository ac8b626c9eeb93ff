import { percentileInterval, type BootstrapOptions } from './bootstrap.js';
import { FastRandom, clusterSums, designEffect } from './clusters.js';

export interface ClusteredSummary {
  /** Mean over all questions. */
  mean: number;
  ciLow: number;
  ciHigh: number;
  /** Share of resamples whose mean is > 0 (for a paired difference: how often the condition wins). */
  sharePositive: number;
  n: number;
  clusters: number;
  /** Cluster-robust variance ÷ plain variance of the mean (Miller 2024, Appendix A); null when it is undefined. */
  designEffect: number | null;
}

/**
 * Mean with a percentile interval from the cluster bootstrap: each resample draws as many clusters
 * as there are, with replacement, and takes all their questions (the resampled mean is Σ sums ÷ Σ
 * counts), so questions that share a volume move together as they do in the data (Field & Welsh
 * 2007, "Bootstrapping clustered data"; Miller 2024 §2.3). Applied to per-question differences it is
 * the paired, clustered bootstrap. Without `clusters` every question is its own cluster: the plain
 * bootstrap over questions. The loop touches only the precomputed per-cluster sums.
 */
export function clusteredBootstrap(values: ArrayLike<number>, clusters: ArrayLike<string | number> | undefined, options: BootstrapOptions = {}): ClusteredSummary {
  if (values.length === 0) return { mean: NaN, ciLow: NaN, ciHigh: NaN, sharePositive: NaN, n: 0, clusters: 0, designEffect: null };
  const { sums, counts, mean } = clusterSums(values, clusters);
  return {
    mean,
    ...resampleClusters(sums, 1, counts, new FastRandom(options.seed ?? 0), options),
    n: values.length,
    clusters: sums.length,
    designEffect: clusters ? designEffect(values, clusters).designEffect : null,
  };
}

/**
 * The resampling loop of both cluster bootstraps. Each resample draws as many clusters as there
 * are, with replacement, one random word a draw: its high bits pick the cluster c (as
 * `FastRandom.index` does), its low bits one of the `width` entries (a power of two) of c's row in
 * `draws` — the cluster's sum (width 1: `clusteredBootstrap`) or one of its second-stage redraws
 * (`twoStageBootstrap`'s bank). The resampled mean is Σ drawn ÷ Σ counts: one addition per drawn
 * cluster, whatever the clusters' sizes.
 */
export function resampleClusters(draws: Float64Array, width: number, counts: Float64Array, random: FastRandom, options: BootstrapOptions): Pick<ClusteredSummary, 'ciLow' | 'ciHigh' | 'sharePositive'> {
  const C = counts.length;
  const resamples = options.resamples ?? 1000;
  const means = new Float64Array(resamples);
  let positive = 0;
  const scale = C / 4294967296;
  const mask = width - 1;
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    let count = 0;
    for (let j = 0; j < C; j++) {
      const word = random.word();
      // `| 0` is Math.floor for a product in [0, C) and keeps the index arithmetic in int32 (Math.floor: the width-1 loop ~30% slower).
      const c = (word * scale) | 0;
      sum += draws[c * width + (word & mask)]!;
      count += counts[c]!;
    }
    const m = sum / count;
    means[r] = m;
    if (m > 0) positive++;
  }
  means.sort();
  return { ...percentileInterval(means, options), sharePositive: positive / resamples };
}
