import type { BootstrapOptions } from './bootstrap.js';
import { FastRandom, clusterSums, designEffect } from './clusters.js';
import { resampleClusters, type ClusteredSummary } from './clusteredBootstrap.js';

/**
 * Repeated samples (`samples: n`): each question answered n times, its scores reduced to one per
 * question before the question-level statistics — Inspect's epoch reducers where they fit a score:
 * `mean` (any metric; the default), `median` (a continuous score such as RS, robust to one wild
 * sample), `mode` (majority vote: accuracy, MCQ), `max` (pass@n-like: best of the n answers).
 */
export const REDUCERS = ['mean', 'median', 'mode', 'max'] as const;
export type Reducer = (typeof REDUCERS)[number];

/** One question's samples reduced to its score. */
export function reduceSamples(values: readonly number[], reducer: Reducer): number {
  const n = values.length;
  if (n === 0) return NaN;
  if (n === 1) return values[0]!;
  if (reducer === 'mean') return values.reduce((a, b) => a + b, 0) / n;
  if (reducer === 'max') return Math.max(...values);
  const sorted = [...values].sort((a, b) => a - b);
  if (reducer === 'median') return n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
  // mode: the most frequent score; a tie goes to the lowest of the tied scores (no sample wins by order).
  let best = sorted[0]!;
  let bestCount = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j < n && sorted[j] === sorted[i]) j++;
    if (j - i > bestCount) {
      best = sorted[i]!;
      bestCount = j - i;
    }
    i = j;
  }
  return best;
}

/** Between- and within-question variance of one answer's score, and what they make of the mean. */
export interface VarianceSplit {
  /** Variance of the questions' true scores: Var(item means) − mean(s²ᵢ / nᵢ), at least 0. */
  between: number;
  /** The model's sampling variance: mean over questions with ≥ 2 samples of the variance of their samples' scores. */
  within: number;
  /** Mean samples per question. */
  samplesPerQuestion: number;
  /** Share of a question's score variance (its n samples reduced by their mean) that is sampling: (within/n) ÷ (between + within/n). */
  samplingShare: number;
  /**
   * How many independent questions, each answered without sampling noise, would give the mean's
   * variance: between ÷ (cluster-robust variance of the mean, at least the per-question one). Below
   * n by the design effect and by the sampling noise left after n samples.
   */
  effectiveQuestions: number;
}

/**
 * The variance split of a cell's scores (`samples[i]`: the scores of question i's answers), over
 * the clusters when given.
 */
export function varianceSplit(samples: readonly (readonly number[])[], reducer: Reducer, clusters?: ArrayLike<string | number>): VarianceSplit {
  const n = samples.length;
  const means = samples.map((s) => s.reduce((a, b) => a + b, 0) / s.length);
  const grand = means.reduce((a, b) => a + b, 0) / n;
  const varianceOfMeans = n > 1 ? means.reduce((a, m) => a + (m - grand) ** 2, 0) / (n - 1) : 0;
  let within = 0;
  let withinOfMean = 0;
  let repeated = 0;
  let perQuestion = 0;
  for (let i = 0; i < n; i++) {
    const s = samples[i]!;
    perQuestion += s.length;
    if (s.length < 2) continue;
    const v = s.reduce((a, x) => a + (x - means[i]!) ** 2, 0) / (s.length - 1);
    within += v;
    withinOfMean += v / s.length;
    repeated++;
  }
  within = repeated ? within / repeated : 0;
  withinOfMean = repeated ? withinOfMean / n : 0;
  const between = Math.max(0, varianceOfMeans - withinOfMean);
  const samplesPerQuestion = perQuestion / n;
  const reduced = samples.map((s) => reduceSamples(s, reducer));
  const { iidVariance, clusteredVariance } = designEffect(reduced, clusters);
  const meanVariance = clusters ? clusteredVariance : iidVariance;
  const ofQuestion = between + within / samplesPerQuestion;
  return {
    between,
    within,
    samplesPerQuestion,
    samplingShare: ofQuestion > 0 ? within / samplesPerQuestion / ofQuestion : 0,
    // At most n: a cluster-robust variance below the per-question one (a design effect < 1, few clusters' noise) is not more information than n questions hold.
    effectiveQuestions: meanVariance > 0 ? Math.min(n, between / Math.max(meanVariance, iidVariance)) : n,
  };
}

export interface SampledData {
  /** Per question, the scores of its samples (at least one each). */
  samples: readonly (readonly number[])[];
  /** A paired difference: per question, the reference condition's samples; the question's value is reduce(samples) − reduce(minus). */
  minus?: readonly (readonly number[])[];
  /** One key per question; omitted: every question its own cluster. */
  clusters?: ArrayLike<string | number>;
  reducer?: Reducer;
}

/**
 * Second-stage draws kept per cluster (a power of two: the low bits of the cluster's random word
 * pick one). The bank's size shapes the second stage's distribution, not the interval's variance:
 * λ is computed from the bank's own variance, so stage one plus stage two always add up to the
 * cluster sums' spread.
 */
const BANK = 32;

/**
 * The two-stage bootstrap (Davison & Hinkley 1997, §3.8): each resample draws clusters with
 * replacement (all their questions), then, within each question, its samples with replacement,
 * and reduces them. Done naively the second stage counts the sampling noise twice (the first stage's
 * cluster sums already carry it), widening every interval; so, as Davison & Hinkley recommend, the
 * first stage resamples the cluster sums shrunk toward the mean by λ = √(1 − W/B) (B: the cluster
 * sums' spread, W: the part of it the samples' own variance explains) and the second stage's
 * deviations of a sample mean are inflated by √(n/(n−1)) (the plug-in variance's bias). The second
 * stage is drawn ahead: each cluster gets BANK resampled sums (deviations from its observed sum,
 * centred), and a resample picks one at random per drawn cluster — so the loop still costs one
 * addition per drawn cluster (the precomputed-sums trick of `clusteredBootstrap`), not one per
 * sample. With one sample per question it is exactly `clusteredBootstrap`.
 */
export function twoStageBootstrap(data: SampledData, options: BootstrapOptions = {}): ClusteredSummary {
  const reducer = data.reducer ?? 'mean';
  const n = data.samples.length;
  if (data.minus && data.minus.length !== n) throw new Error(`twoStageBootstrap: ${n} questions but ${data.minus.length} reference questions`);
  if (n === 0) return { mean: NaN, ciLow: NaN, ciHigh: NaN, sharePositive: NaN, n: 0, clusters: 0, designEffect: null };
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) values[i] = reduceSamples(data.samples[i]!, reducer) - (data.minus ? reduceSamples(data.minus[i]!, reducer) : 0);
  const { sums, counts, mean, clusterOf } = clusterSums(values, data.clusters);
  const C = sums.length;
  const random = new FastRandom(options.seed ?? 0);

  // Second stage, drawn ahead: BANK deviations per cluster of its resampled sum from its observed one.
  const bank = new Float64Array(C * BANK);
  // The plug-in variance of a resampled mean is (k−1)/k of the unbiased one: the mean's deviations are inflated back.
  const inflate = (k: number) => (k > 1 ? Math.sqrt(k / (k - 1)) : 1);
  // One scratch row for the reducers that sort (the mean needs none): the bank is drawn n × BANK times.
  const scratch: number[] = [];
  const redrawn = (scores: readonly number[]): number => {
    const k = scores.length;
    scratch.length = k;
    for (let j = 0; j < k; j++) scratch[j] = scores[random.index(k)]!;
    return reduceSamples(scratch, reducer);
  };
  /** Adds BANK redrawn deviations of one question's samples (sign −1: the reference side of a difference) to its cluster's bank row. */
  const addDeviations = (scores: readonly number[], base: number, sign: number) => {
    const k = scores.length;
    if (k === 1) return;
    const reduced = reduceSamples(scores, reducer);
    if (reducer !== 'mean') {
      for (let r = 0; r < BANK; r++) bank[base + r]! += sign * (redrawn(scores) - reduced);
      return;
    }
    const factor = sign * inflate(k);
    // The mean, inline: k draws summed per bank entry, nothing allocated.
    for (let r = 0; r < BANK; r++) {
      let sum = 0;
      for (let j = 0; j < k; j++) sum += scores[random.index(k)]!;
      bank[base + r]! += factor * (sum / k - reduced);
    }
  };
  let sampled = false;
  for (let i = 0; i < n; i++) {
    if (data.samples[i]!.length > 1 || (data.minus && data.minus[i]!.length > 1)) {
      sampled = true;
      break;
    }
  }
  let within = 0;
  if (sampled) {
    for (let i = 0; i < n; i++) {
      const a = data.samples[i]!;
      const b = data.minus?.[i];
      if (a.length === 1 && (!b || b.length === 1)) continue;
      const base = clusterOf[i]! * BANK;
      addDeviations(a, base, 1);
      if (b) addDeviations(b, base, -1);
    }
    for (let c = 0; c < C; c++) {
      const base = c * BANK;
      let m = 0;
      for (let r = 0; r < BANK; r++) m += bank[base + r]!;
      m /= BANK;
      let v = 0;
      for (let r = 0; r < BANK; r++) {
        bank[base + r]! -= m;
        v += bank[base + r]! ** 2;
      }
      within += v / BANK;
    }
  }
  let spread = 0;
  for (let c = 0; c < C; c++) spread += (sums[c]! - counts[c]! * mean) ** 2;
  const lambda = sampled && spread > 0 ? Math.sqrt(Math.max(0, 1 - within / spread)) : 1;
  // Each bank entry becomes a whole draw of its cluster: the shrunk sum plus one second-stage deviation (one load per drawn cluster).
  for (let c = 0; c < C; c++) {
    const shrunk = counts[c]! * mean + lambda * (sums[c]! - counts[c]! * mean);
    for (let r = 0; r < BANK; r++) bank[c * BANK + r]! += shrunk;
  }

  return {
    mean,
    // One word per drawn cluster: its high bits pick the cluster, its low bits the second-stage draw.
    ...resampleClusters(bank, BANK, counts, random, options),
    n,
    clusters: C,
    designEffect: data.clusters ? designEffect(values, data.clusters).designEffect : null,
  };
}
