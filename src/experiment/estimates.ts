import type { MeanWithCi } from '../runFiles/summary.js';
import { summarizeScores } from '../scoring/bootstrap.js';
import { clusteredBootstrap } from '../scoring/estimators/clusteredBootstrap.js';


/** A per-estimate seed: the run's seed hashed (FNV-1a) with a salt naming the estimate. */
export function seedFor(seed: number, salt: string): number {
  let h = seed >>> 0;
  for (let i = 0; i < salt.length; i++) h = Math.imul(h ^ salt.charCodeAt(i), 16777619) >>> 0;
  return h;
}

/**
 * Mean with its 95% bootstrap CI; all null when there are no values. With `clusters` (one key per
 * value) the bootstrap resamples clusters and the design effect is reported beside the interval.
 */
export function meanWithCi(values: number[], options: { resamples: number; seed: number }, salt: string, clusters?: readonly string[]): MeanWithCi {
  if (values.length === 0) return { n: 0, mean: null, ciLow: null, ciHigh: null };
  if (clusters) {
    const c = clusteredBootstrap(values, clusters, { resamples: options.resamples, seed: seedFor(options.seed, salt) });
    return { n: values.length, mean: c.mean, ciLow: c.ciLow, ciHigh: c.ciHigh, clusters: c.clusters, designEffect: c.designEffect };
  }
  const s = summarizeScores(values, { resamples: options.resamples, seed: seedFor(options.seed, salt) });
  return { n: values.length, mean: s.mean, ciLow: s.ciLow, ciHigh: s.ciHigh };
}
