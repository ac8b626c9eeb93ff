import { percentileInterval, type BootstrapOptions, type Interval } from './bootstrap.js';
import { FastRandom } from './clusters.js';

/**
 * Several per-unit columns summed by cluster, for the estimators whose statistic is a function of
 * a few totals rather than one mean — the prediction-powered mean (sums of judge scores, of labels,
 * of their products, over all answers and over the labelled ones), a correlation (Σx, Σy, Σxy …),
 * Cohen's κ (a confusion table) and Krippendorff's α (category counts and disagreements). Summing
 * once per cluster makes a resample cost one row addition per drawn cluster, as in
 * `clusteredBootstrap`.
 */
export interface ClusterTotals {
  /** Row c (clusters in order of first appearance) holds cluster c's total of each column: C × width, row-major. */
  totals: Float64Array;
  width: number;
  clusters: number;
}

/** Sums `columns[k][i]` into unit i's cluster `clusters[i]` (every unit its own cluster when `clusters` is omitted). */
export function clusterTotals(columns: readonly ArrayLike<number>[], clusters?: ArrayLike<string | number>): ClusterTotals {
  const width = columns.length;
  const n = columns[0]?.length ?? 0;
  for (const column of columns) if (column.length !== n) throw new Error(`clusterTotals: columns of ${n} and ${column.length} units`);
  if (clusters && clusters.length !== n) throw new Error(`clusterTotals: ${n} units but ${clusters.length} cluster keys`);
  const index = new Map<string | number, number>();
  const rows: number[] = [];
  for (let i = 0; i < n; i++) {
    const key = clusters ? clusters[i]! : i;
    let c = index.get(key);
    if (c === undefined) {
      c = index.size;
      index.set(key, c);
      for (let k = 0; k < width; k++) rows.push(0);
    }
    for (let k = 0; k < width; k++) rows[c * width + k]! += columns[k]![i]!;
  }
  return { totals: Float64Array.from(rows), width, clusters: index.size };
}

/** The totals over every cluster: what the statistics are computed from on the data as observed. */
export function grandTotals(t: ClusterTotals): Float64Array {
  const sums = new Float64Array(t.width);
  for (let c = 0; c < t.clusters; c++) for (let k = 0; k < t.width; k++) sums[k]! += t.totals[c * t.width + k]!;
  return sums;
}

/** The statistic on the data as observed, with its interval. */
export interface TotalsInterval extends Interval {
  /** Share of (defined) resamples whose statistic is > 0. */
  sharePositive: number;
  /** Resamples in which the statistic is undefined (NaN: e.g. no labelled answer was drawn), left out of the percentiles. */
  undefinedResamples: number;
}

/**
 * The cluster bootstrap of statistics of totals: each resample draws as many clusters as there are,
 * with replacement, sums their rows, and evaluates every statistic on the same resampled totals
 * (so estimates of one call are resampled jointly: a judge-only and a corrected mean see the same
 * draws). Percentile intervals. Without clusters (each unit its own row) it is the plain bootstrap
 * over units. With `strata` (one stratum number per cluster row) each resample draws within each
 * stratum as many of its clusters as it has (the stratified bootstrap), so every resample holds
 * each stratum in its observed number (`ppi.ts`: clusters with labels and clusters without).
 */
export function bootstrapTotals(t: ClusterTotals, statistics: readonly ((totals: Float64Array) => number)[], options: BootstrapOptions = {}, strata?: ArrayLike<number>): TotalsInterval[] {
  const observed = grandTotals(t);
  const estimates = statistics.map((statistic) => statistic(observed));
  if (t.clusters === 0) return estimates.map((estimate) => ({ estimate, ciLow: NaN, ciHigh: NaN, sharePositive: NaN, undefinedResamples: 0 }));
  const resamples = options.resamples ?? 1000;
  const random = new FastRandom(options.seed ?? 0);
  const drawn = statistics.map(() => new Float64Array(resamples));
  const sums = new Float64Array(t.width);
  const { totals, width, clusters: C } = t;
  if (strata && strata.length !== C) throw new Error(`bootstrapTotals: ${C} clusters but ${strata.length} strata`);
  // Rows of each stratum (one stratum of every row without strata: the draws are then those of the plain cluster bootstrap).
  const groups = strata ? [...new Set(Array.from(strata))].sort((a, b) => a - b).map((h) => Array.from({ length: C }, (_, c) => c).filter((c) => strata[c] === h)) : [null];
  for (let r = 0; r < resamples; r++) {
    sums.fill(0);
    for (const rows of groups) {
      const size = rows ? rows.length : C;
      for (let j = 0; j < size; j++) {
        const drawn = random.index(size);
        const base = (rows ? rows[drawn]! : drawn) * width;
        for (let k = 0; k < width; k++) sums[k]! += totals[base + k]!;
      }
    }
    for (let s = 0; s < statistics.length; s++) drawn[s]![r] = statistics[s]!(sums);
  }
  return estimates.map((estimate, s) => {
    const values = drawn[s]!.filter((v) => !Number.isNaN(v)).sort();
    if (values.length === 0) return { estimate, ciLow: NaN, ciHigh: NaN, sharePositive: NaN, undefinedResamples: resamples };
    let positive = 0;
    for (const v of values) if (v > 0) positive++;
    return { estimate, ...percentileInterval(values, options), sharePositive: positive / values.length, undefinedResamples: resamples - values.length };
  });
}
