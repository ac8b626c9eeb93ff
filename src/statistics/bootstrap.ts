import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

export interface BootstrapOptions {
  /** Number of resamples (default 1,000). */
  resamples?: number;
  /** PRNG seed; the same seed gives the same interval (default 0). */
  seed?: number;
  /** Two-sided confidence level (default 0.95). */
  level?: number;
}

/** An estimate with its percentile interval. */
export interface Interval {
  estimate: number;
  ciLow: number;
  ciHigh: number;
}

export interface ScoreSummary {
  mean: number;
  ciLow: number;
  ciHigh: number;
  n: number;
}

export interface PairedSummary {
  /** mean(a − b) over the paired questions. */
  meanDiff: number;
  ciLow: number;
  ciHigh: number;
  /** Share of resamples in which the mean difference is > 0. */
  sharePositive: number;
  n: number;
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, x) => sum + x, 0) / values.length;
}

/** Linear-interpolated quantile of sorted values (numpy's default). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const weight = position - lower;
  return sorted[lower]! * (1 - weight) + sorted[upper]! * weight;
}

/** The two-sided percentile interval at `options.level` (default 0.95) of sorted resampled statistics. */
export function percentileInterval(sorted: ArrayLike<number>, options: BootstrapOptions): { ciLow: number; ciHigh: number } {
  const alpha = (1 - (options.level ?? 0.95)) / 2;
  return { ciLow: quantile(sorted, alpha), ciHigh: quantile(sorted, 1 - alpha) };
}

/** Means of `resamples` resamples drawn with replacement from `values`, seeded. */
function resampledMeans(values: readonly number[], options: BootstrapOptions): number[] {
  const rng = xoroshiro128plus(options.seed ?? 0);
  const means: number[] = [];
  for (let r = 0; r < (options.resamples ?? 1000); r++) {
    let sum = 0;
    for (let i = 0; i < values.length; i++) sum += values[uniformInt(rng, 0, values.length - 1)]!;
    means.push(sum / values.length);
  }
  return means;
}

/** Mean with a percentile-bootstrap confidence interval (NaN everywhere when there are no values). */
export function summarizeScores(values: readonly number[], options: BootstrapOptions = {}): ScoreSummary {
  if (values.length === 0) return { mean: NaN, ciLow: NaN, ciHigh: NaN, n: 0 };
  const means = resampledMeans(values, options).sort((x, y) => x - y);
  return { mean: mean(values), ...percentileInterval(means, options), n: values.length };
}

/**
 * Paired bootstrap for the difference between two conditions on the same questions
 * (`a[i]` and `b[i]` score the same question): resamples questions, not scores.
 */
export function pairedBootstrap(a: readonly number[], b: readonly number[], options: BootstrapOptions = {}): PairedSummary {
  if (a.length !== b.length) throw new Error(`pairedBootstrap: ${a.length} vs ${b.length} scores; the conditions must score the same questions`);
  if (a.length === 0) return { meanDiff: NaN, ciLow: NaN, ciHigh: NaN, sharePositive: NaN, n: 0 };
  const diffs = a.map((x, i) => x - b[i]!);
  const means = resampledMeans(diffs, options).sort((x, y) => x - y);
  return {
    meanDiff: mean(diffs),
    ...percentileInterval(means, options),
    sharePositive: means.filter((m) => m > 0).length / means.length,
    n: diffs.length,
  };
}
