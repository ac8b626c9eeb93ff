import { designEffect } from './clusters.js';
import { signFlipTest } from './pairedTest.js';
import { normalDrawer, simulateClustered, type ClusteredDesign } from './simulate.js';

/**
 * Power of a paired comparison before the run (Miller 2024, *Adding Error Bars to Evals*, §5): the
 * standard error of a mean paired difference over n questions in clusters is
 * sqrt(design effect · σ²_d / n), and a two-sided test at level α detects a true difference δ with
 * probability `power` when δ ≥ (z_{1−α/2} + z_power) · SE — the minimum detectable difference.
 */
export interface PowerSettings {
  /** Two-sided level of the test (default 0.05). */
  alpha?: number;
  /** Probability of detecting the difference (default 0.8). */
  power?: number;
}

export interface PairedVariance {
  /** Standard deviation of one question's paired difference (points). */
  sd: number;
  /** Clustered ÷ plain variance of the mean difference at the questions per cluster it was measured at. */
  designEffect: number;
  /** Questions per cluster the design effect holds for (1: not clustered). */
  clusterSize: number;
}

/**
 * Inverse of the standard normal distribution function (Acklam's rational approximation, relative
 * error < 1.2·10⁻⁹: far below anything a power figure needs).
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p must be in (0, 1), got ${p}`);
  const a = [-39.69683028665376, 220.9460984245205, -275.928510446969, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  const tail = (q: number) => (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < low) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - low) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/** z_{1−α/2} + z_power: the number of standard errors a detectable difference spans. */
export function powerMultiplier(settings: PowerSettings = {}): number {
  const alpha = settings.alpha ?? 0.05;
  const power = settings.power ?? 0.8;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`power: alpha must be in (0, 1), got ${alpha}`);
  if (!(power > 0 && power < 1)) throw new RangeError(`power: power must be in (0, 1), got ${power}`);
  return normalQuantile(1 - alpha / 2) + normalQuantile(power);
}

/** The design effect of clusters of m questions with intra-cluster correlation ρ (Kish): 1 + (m − 1)·ρ. */
export function designEffectOf(icc: number, clusterSize: number): number {
  return 1 + Math.max(0, clusterSize - 1) * icc;
}

/**
 * A design effect measured at one cluster size, carried to another through the intra-cluster
 * correlation it implies, ρ = (deff − 1)/(m − 1). ρ below 0 (a small run's noise, rarely a real
 * design) is taken as 0, so a projection never promises more than unclustered questions give.
 */
export function projectDesignEffect(variance: Pick<PairedVariance, 'designEffect' | 'clusterSize'>, clusterSize: number): number {
  if (variance.clusterSize <= 1) return 1;
  const icc = Math.max(0, (variance.designEffect - 1) / (variance.clusterSize - 1));
  return designEffectOf(icc, clusterSize);
}

/** (z_{1−α/2} + z_power) · sqrt(deff · σ²_d / n). */
export function minimumDetectableDifference(sd: number, n: number, deff: number, settings: PowerSettings = {}): number {
  if (!(n > 0)) return NaN;
  return powerMultiplier(settings) * Math.sqrt((deff * sd * sd) / n);
}

/** The fewest questions whose minimum detectable difference is at most `difference` (same σ_d, design effect and level). */
export function questionsNeeded(sd: number, difference: number, deff: number, settings: PowerSettings = {}): number {
  if (!(difference > 0)) throw new RangeError(`power: the difference must be > 0, got ${difference}`);
  return Math.max(2, Math.ceil((powerMultiplier(settings) ** 2 * deff * sd * sd) / (difference * difference)));
}

/**
 * σ_d and the design effect of paired differences measured in an earlier run, with the cluster size
 * it holds for (n ÷ clusters). Without clusters the design effect is 1. Null with fewer than two
 * differences or none that vary.
 */
export function pairedVarianceOf(diffs: ArrayLike<number>, clusters?: ArrayLike<string | number>): (PairedVariance & { n: number; clusters: number }) | null {
  const n = diffs.length;
  if (n < 2) return null;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += diffs[i]!;
  mean /= n;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (diffs[i]! - mean) ** 2;
  const sd = Math.sqrt(squares / (n - 1));
  if (!(sd > 0)) return null;
  if (!clusters) return { sd, designEffect: 1, clusterSize: 1, n, clusters: n };
  const count = new Set(Array.from(clusters)).size;
  const measured = designEffect(diffs, clusters).designEffect;
  return { sd, designEffect: measured ?? 1, clusterSize: n / count, n, clusters: count };
}

/** A simulated design's clusters, their size and ICC, and σ_d (`sd`): the standard deviation of one paired difference. */
export type PowerStudyDesign = Omit<ClusteredDesign, 'truth'>;

export interface PowerStudyResult {
  runs: number;
  /** The minimum detectable difference the formula reports for the design (the simulated truth). */
  mdd: number;
  /** Share of runs whose clustered sign-flip test rejected "no difference" at α. */
  detected: number;
}

/**
 * Proof of the power figure by simulation: paired differences with a true mean equal to the
 * reported minimum detectable difference, clustered with the design's ICC, tested by the clustered
 * sign-flip test at α; the share of rejections should be ≈ the power.
 */
export function powerStudy(design: PowerStudyDesign, options: { runs: number; flips: number; seed: number; /** The true difference as a multiple of the MDD (default 1). */ ofMdd?: number } & PowerSettings): PowerStudyResult {
  const alpha = options.alpha ?? 0.05;
  const n = design.clusters * design.perCluster;
  const mdd = minimumDetectableDifference(design.sd, n, designEffectOf(design.icc, design.perCluster), options);
  const normal = normalDrawer(options.seed);
  let detected = 0;
  for (let run = 0; run < options.runs; run++) {
    const data = simulateClustered({ ...design, truth: mdd * (options.ofMdd ?? 1) }, normal);
    if (signFlipTest(data.values, data.clusters, { flips: options.flips, seed: run + 1 }).p <= alpha) detected++;
  }
  return { runs: options.runs, mdd, detected: detected / options.runs };
}
