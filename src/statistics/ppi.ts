/**
 * Judge scores checked against people: a condition's mean and a paired Δ corrected with human
 * labels on a random subset of the judged answers (prediction-powered inference, Angelopoulos,
 * Bates, Fannjiang, Jordan & Zrnic, Science 2023; power-tuned PPI++, Angelopoulos, Duchi & Zrnic
 * 2023), the labels-only and judge-only estimates beside it, the judge's bias per condition and its
 * difference between a condition and the baseline, and the labels a target interval width needs.
 *
 * Notation: N judged answers with judge scores f, of which n (drawn with known inclusion
 * probabilities π, `labelDraw.ts`) also carry a human label Y; the other N′ = N − n are judged only.
 * Means over the labelled are weighted by w = 1/π (Ȳ_w = Σ wY ÷ Σ w, f̄_w likewise), which makes them
 * unbiased for the whole run however unequal the draw; with equal π they are plain means. For λ,
 *   θ̂_λ = Ȳ_w + λ·(N/N′)·(f̄_N − f̄_w),
 * which with equal weights is the paper's λ·mean_N′(f) + mean_n(Y − λf) (the judged-only answers'
 * mean, since f̄_N − f̄_n = (N′/N)(f̄_N′ − f̄_n)): λ = 1 is PPI, λ = 0 the labels alone, as in
 * `ppi_py` (`ppi_mean_pointestimate`, whose `w` weights the labelled answers the same way). Its
 * variance Var(Y − λf)/n + λ²·Var(f)/N′ is smallest at PPI++'s λ̂ = Cov(Y, f) ÷ ((1 + n/N′)·Var(f))
 * (ppi_py's `_calc_lam_glm` for a mean: the covariance over the labelled answers, divisor n, and
 * Var(f) over all N), clipped to [0, 1] in this parameterisation as ppi_py clips it.
 */
import type { BootstrapOptions, Interval } from './bootstrap.js';
import { bootstrapTotals, clusterTotals, grandTotals, type ClusterTotals } from './clusterTotals.js';
import { normalQuantile } from './power.js';

/** One judged answer (a question in one condition): its judge score, its human label when it has one, its cluster. */
export interface JudgedAnswer {
  /** The question (pairs a condition's answer with the baseline's). */
  key: string;
  /** Absent: the question is its own cluster. */
  cluster?: string | number;
  judge: number;
  /** The human score on the judge's scale; absent or null: not labelled. Several annotators: their mean. */
  human?: number | null;
  /** The question's probability of being drawn for labelling (`labelDraw.ts`); absent: the same for every question. */
  inclusion?: number;
}

/**
 * Why an estimate needs care, for every surface to print: `few-labels` (fewer than 10 labelled
 * questions), `few-clusters` (labels in fewer than 5 clusters: a clustered interval rests on too few
 * to be trusted), `labels-all-equal` (every label the same: the interval is the stated bound of
 * `equalLabelBound`, not a resampled one).
 */
export type PpiCaution = 'few-labels' | 'few-clusters' | 'labels-all-equal';
export const FEW_LABELS = 10;
export const FEW_CLUSTERS = 5;

export interface PpiOptions extends BootstrapOptions {
  /** The metric's range [low, high] (default [0, 100], points): where a bound for all-equal labels ends. */
  scale?: readonly [number, number];
}

export interface PredictionPoweredEstimate {
  /** Answers judged (N). */
  n: number;
  /** Of them, labelled (n). */
  labelled: number;
  clusters: number;
  /** Clusters holding at least one label. */
  labelledClusters: number;
  /** mean_N(f): what a table of judge scores alone reports. */
  judgeOnly: Interval;
  /** Ȳ_w: the labels alone. */
  labelsOnly: Interval;
  /** PPI (λ = 1). */
  ppi: Interval;
  /** PPI++ (λ̂, clipped to [0, 1]); `lambda` on the data as observed, in the paper's parameterisation. */
  ppiPlusPlus: Interval & { lambda: number };
  caution: PpiCaution[];
}

// Columns summed per cluster: every answer, then the labelled ones (L = 1 when labelled, W = its weight 1/π).
const N = 0;
const F = 1;
const FF = 2;
const L = 3;
const W = 4;
const WF = 5;
const WY = 6;
const WFY = 7;

/** PPI++'s λ̂ = Cov_w(Y, f) ÷ ((1 + n/N′)·Var_N(f)), clipped to [0, 1]; 0 when undefined (fewer than two labels, a constant judge, nothing unlabelled). */
function tunedLambda(t: Float64Array): number {
  const unlabelled = t[N]! - t[L]!;
  if (t[L]! < 2 || t[N]! < 2 || unlabelled <= 0) return 0;
  const covariance = t[WFY]! / t[W]! - (t[WF]! / t[W]!) * (t[WY]! / t[W]!);
  const variance = (t[FF]! - (t[F]! * t[F]!) / t[N]!) / (t[N]! - 1);
  if (!(variance > 0)) return 0;
  return Math.min(1, Math.max(0, covariance / ((1 + t[L]! / unlabelled) * variance)));
}

function weighted(t: Float64Array, lambda: number): number {
  if (!(t[L]! > 0)) return NaN;
  const unlabelled = t[N]! - t[L]!;
  const labels = t[WY]! / t[W]!;
  return unlabelled > 0 ? labels + lambda * (t[N]! / unlabelled) * (t[F]! / t[N]! - t[WF]! / t[W]!) : labels;
}
const judgeMean = (t: Float64Array) => t[F]! / t[N]!;
const labelMean = (t: Float64Array) => weighted(t, 0);
const ppiMean = (t: Float64Array) => weighted(t, 1);
const ppiPlusPlusMean = (t: Float64Array) => weighted(t, tunedLambda(t));

/**
 * Student's t quantile with ν degrees of freedom, by the Cornish–Fisher expansion in the normal
 * quantile (Abramowitz & Stegun 26.7.5): within 0.01 of the tables from ν = 3, closer as ν grows.
 */
export function studentQuantile(p: number, nu: number): number {
  const z = normalQuantile(p);
  const z2 = z * z;
  const g1 = (z * (z2 + 1)) / 4;
  const g2 = (z * ((5 * z2 + 16) * z2 + 3)) / 96;
  const g3 = (z * (((3 * z2 + 19) * z2 + 17) * z2 - 15)) / 384;
  const g4 = (z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945)) / 92160;
  return z + g1 / nu + g2 / nu ** 2 + g3 / nu ** 3 + g4 / nu ** 4;
}

/**
 * How much a percentile interval resting on G resampled clusters is widened about its estimate:
 * √(G/(G − 1)) (the bootstrap's variance is the plug-in one, short by (G − 1)/G) times
 * t_{G−1} ÷ z (few clusters: the t reference a cluster-robust interval uses). Both are the
 * small-sample corrections of cluster-robust standard errors (e.g. Stata's `vce(cluster)`); without
 * them the interval undercovers when the labels sit in a few dozen clusters (docs/scoring.md).
 */
export function fewClusterFactor(clusters: number, level = 0.95): number {
  if (clusters < 2) return 1;
  const p = 1 - (1 - level) / 2;
  return Math.sqrt(clusters / (clusters - 1)) * (studentQuantile(p, clusters - 1) / normalQuantile(p));
}

/**
 * Every label the same value v: a resampled interval would have width 0 whatever the labels could
 * have been. Stated instead: the share of answers whose label differs from v is, at the two-sided
 * level, at most u = 1 − (α/2)^(1/n) (Clopper–Pearson for 0 of n; about 3.7/n at 95%, near the
 * rule of three), n the labels' effective number (Σw)²/Σw²; so the mean lies within
 * [v − (v − low)·u, v + (high − v)·u] on the metric's scale [low, high].
 */
export function equalLabelBound(value: number, effectiveLabels: number, scale: readonly [number, number], level = 0.95): Interval {
  const u = 1 - ((1 - level) / 2) ** (1 / effectiveLabels);
  return { estimate: value, ciLow: value - (value - scale[0]) * u, ciHigh: value + (scale[1] - value) * u };
}

/**
 * The four estimates of a mean from per-answer vectors (`human[i]` NaN: not labelled; `weights[i]`
 * the labelled answer's 1/π, default 1), with clustered percentile intervals. The interval is the
 * cluster bootstrap stratified by whether a cluster holds labels: each resample draws, with
 * replacement, as many labelled clusters as there are from those, and as many unlabelled ones from
 * the rest, with their judged answers and labels together, and recomputes λ̂ in the resample. Every
 * resample so has labels (none is dropped, so the interval is not conditioned on drawing some), and
 * without clusters it is `ppi_py`'s bootstrap (labelled and unlabelled answers resampled apart).
 * Chosen over the clustered CLT variance because the labelled answers are a subset of the judged
 * ones in the same clusters (a cross term the CLT formula would need by hand) and λ̂'s own
 * variability is carried into the interval. With labels in a single cluster the labelled answers are
 * resampled one by one (flagged `few-clusters`), so the interval does not collapse to a point. The
 * label-based intervals are widened by `fewClusterFactor` of the clusters holding labels.
 */
export function predictionPowered(judge: ArrayLike<number>, human: ArrayLike<number>, clusters: ArrayLike<string | number> | undefined, options: PpiOptions = {}, weights?: ArrayLike<number>): PredictionPoweredEstimate {
  const n = judge.length;
  if (human.length !== n) throw new Error(`predictionPowered: ${n} judge scores but ${human.length} human labels`);
  if (weights && weights.length !== n) throw new Error(`predictionPowered: ${n} judge scores but ${weights.length} weights`);
  const columns = Array.from({ length: 8 }, () => new Float64Array(n));
  const labels: number[] = [];
  let weightSum = 0;
  let weightSquares = 0;
  for (let i = 0; i < n; i++) {
    const f = judge[i]!;
    const y = human[i]!;
    if (!Number.isFinite(f)) throw new Error(`predictionPowered: judge score ${i} is ${f}`);
    columns[N]![i] = 1;
    columns[F]![i] = f;
    columns[FF]![i] = f * f;
    if (Number.isNaN(y)) continue;
    const w = weights ? weights[i]! : 1;
    if (!(w > 0 && Number.isFinite(w))) throw new Error(`predictionPowered: weight ${i} is ${w}`);
    labels.push(y);
    weightSum += w;
    weightSquares += w * w;
    columns[L]![i] = 1;
    columns[W]![i] = w;
    columns[WF]![i] = w * f;
    columns[WY]![i] = w * y;
    columns[WFY]![i] = w * f * y;
  }
  const all = clusterTotals(columns, clusters);
  const labelled = labelledStrata(all, columns, clusters);
  const [judgeOnly] = bootstrapTotals(all, [judgeMean], options);
  const [labelsOnly, ppi, tuned] = bootstrapTotals(labelled.totals, [labelMean, ppiMean, ppiPlusPlusMean], options, labelled.strata);
  const caution: PpiCaution[] = [];
  if (labels.length < FEW_LABELS) caution.push('few-labels');
  if (clusters && labelled.clusters < FEW_CLUSTERS) caution.push('few-clusters');
  const widen = labels.length > 0 && labels.every((y) => y === labels[0]) ? equalLabelBound(labels[0]!, (weightSum * weightSum) / weightSquares, options.scale ?? [0, 100], options.level) : null;
  if (widen) caution.push('labels-all-equal');
  // Widened for the clusters the labels rest on; all-equal labels: at least as wide as the stated bound, moved to its estimate.
  // Kept within the metric's scale (the truth lies there), or as far as the estimate when it does not.
  const factor = fewClusterFactor(labelled.resampled, options.level);
  const [low, high] = options.scale ?? [0, 100];
  const interval = (b: Interval): Interval => {
    const estimate = b.estimate;
    let ciLow = estimate - factor * (estimate - b.ciLow);
    let ciHigh = estimate + factor * (b.ciHigh - estimate);
    if (widen) {
      ciLow = Math.min(ciLow, estimate - (widen.estimate - widen.ciLow));
      ciHigh = Math.max(ciHigh, estimate + (widen.ciHigh - widen.estimate));
    }
    return { estimate, ciLow: Math.max(ciLow, Math.min(low, estimate)), ciHigh: Math.min(ciHigh, Math.max(high, estimate)) };
  };
  return {
    n,
    labelled: labels.length,
    clusters: all.clusters,
    labelledClusters: labelled.clusters,
    judgeOnly: { estimate: judgeOnly!.estimate, ciLow: judgeOnly!.ciLow, ciHigh: judgeOnly!.ciHigh },
    labelsOnly: interval(labelsOnly!),
    ppi: interval(ppi!),
    ppiPlusPlus: { ...interval(tuned!), lambda: tunedLambda(grandTotals(all)) },
    caution,
  };
}

/**
 * The totals to resample for the label-based estimates and their strata (1: the cluster holds
 * labels, 0: it does not); `clusters` counts the clusters with labels. With labels in only one
 * cluster, that cluster's answers become their own clusters, so the labels still vary.
 */
function labelledStrata(all: ClusterTotals, columns: Float64Array[], clusters: ArrayLike<string | number> | undefined): { totals: ClusterTotals; strata: Uint8Array; clusters: number; resampled: number } {
  const strataOf = (t: ClusterTotals) => Uint8Array.from({ length: t.clusters }, (_, c) => (t.totals[c * t.width + L]! > 0 ? 1 : 0));
  const strata = strataOf(all);
  const withLabels = strata.reduce((s, v) => s + v, 0);
  if (withLabels !== 1 || !clusters) return { totals: all, strata, clusters: withLabels, resampled: withLabels };
  const keys = Array.from({ length: columns[0]!.length }, (_, i) => clusters[i]!);
  const single = keys.find((_, i) => columns[L]![i]! > 0);
  const split = clusterTotals(
    columns,
    keys.map((k, i) => (k === single ? `\u0000answer ${i}` : k)),
  );
  const splitStrata = strataOf(split);
  return { totals: split, strata: splitStrata, clusters: withLabels, resampled: splitStrata.reduce((s, v) => s + v, 0) };
}

const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const labelOf = (a: JudgedAnswer) => (a.human === undefined || a.human === null ? NaN : a.human);
const weightOf = (a: JudgedAnswer) => (a.inclusion === undefined ? 1 : 1 / a.inclusion);

function uniqueByKey(answers: readonly JudgedAnswer[], what: string): JudgedAnswer[] {
  const sorted = [...answers].sort(byKey);
  for (let i = 1; i < sorted.length; i++) if (sorted[i]!.key === sorted[i - 1]!.key) throw new Error(`${what}: question ${sorted[i]!.key} appears twice (reduce repeated samples first)`);
  for (const a of sorted) if (a.inclusion !== undefined && !(a.inclusion > 0 && a.inclusion <= 1)) throw new Error(`${what}: question ${a.key} has inclusion probability ${a.inclusion}, outside (0, 1]`);
  return sorted;
}

/** A condition's mean: judge-only, labels-only, PPI and PPI++ with clustered intervals (answers in key order: the same interval whatever order they come in). */
export function correctedMean(answers: readonly JudgedAnswer[], options: PpiOptions = {}): PredictionPoweredEstimate {
  const sorted = uniqueByKey(answers, 'correctedMean');
  const clustered = sorted.some((a) => a.cluster !== undefined);
  return predictionPowered(
    sorted.map((a) => a.judge),
    sorted.map(labelOf),
    clustered ? sorted.map((a) => a.cluster ?? `\u0000${a.key}`) : undefined,
    options,
    sorted.map(weightOf),
  );
}

/** Questions both sides answered, in key order: the condition's answer, the baseline's, the cluster (the condition's). */
function paired(condition: readonly JudgedAnswer[], baseline: readonly JudgedAnswer[], what: string) {
  const base = new Map(uniqueByKey(baseline, what).map((a) => [a.key, a]));
  const pairs = uniqueByKey(condition, what).flatMap((c) => (base.has(c.key) ? [{ c, b: base.get(c.key)! }] : []));
  const clustered = pairs.some(({ c }) => c.cluster !== undefined);
  return { pairs, clusters: clustered ? pairs.map(({ c }) => c.cluster ?? `\u0000${c.key}`) : undefined };
}

export interface CorrectedDifference extends PredictionPoweredEstimate {
  /** Questions labelled in one condition but not the other: not used as labels of the difference. */
  labelledOnOneSide: number;
}

/**
 * condition − baseline on the questions both answered: the same estimator on per-question
 * differences, f = f_condition − f_baseline, Y = Y_condition − Y_baseline where both answers of the
 * question are labelled (the labels must be drawn on the same questions for both conditions; the
 * question's inclusion probability is the condition's answer's). A difference of two scores on
 * [low, high] lies on [low − high, high − low]: the scale of a bound for all-equal labels.
 */
export function correctedDifference(condition: readonly JudgedAnswer[], baseline: readonly JudgedAnswer[], options: PpiOptions = {}): CorrectedDifference {
  const { pairs, clusters } = paired(condition, baseline, 'correctedDifference');
  let labelledOnOneSide = 0;
  const human = pairs.map(({ c, b }) => {
    const y = labelOf(c) - labelOf(b);
    if (Number.isNaN(y) && !(Number.isNaN(labelOf(c)) && Number.isNaN(labelOf(b)))) labelledOnOneSide++;
    return y;
  });
  const [low, high] = options.scale ?? [0, 100];
  const estimate = predictionPowered(
    pairs.map(({ c, b }) => c.judge - b.judge),
    human,
    clusters,
    { ...options, scale: [low - high, high - low] },
    pairs.map(({ c }) => weightOf(c)),
  );
  return { ...estimate, labelledOnOneSide };
}

export interface BiasEstimate extends Interval {
  /** Labelled answers (questions, for a difference) it is computed on. */
  labelled: number;
  clusters: number;
}

/** The judge's bias on a condition: the weighted mean of judge − human over its labelled answers, with a clustered interval. */
export function judgeBias(answers: readonly JudgedAnswer[], options: PpiOptions = {}): BiasEstimate {
  const labelled = uniqueByKey(answers, 'judgeBias').filter((a) => !Number.isNaN(labelOf(a)));
  const clustered = labelled.some((a) => a.cluster !== undefined);
  const [low, high] = options.scale ?? [0, 100];
  return biasOf(
    labelled.map((a) => a.judge - labelOf(a)),
    labelled.map(weightOf),
    clustered ? labelled.map((a) => a.cluster ?? `\u0000${a.key}`) : undefined,
    { ...options, scale: [low - high, high - low] },
  );
}

/** Σw·d ÷ Σw with the cluster bootstrap; every value the same: `equalLabelBound` on the difference's scale. */
function biasOf(values: number[], weights: number[], clusters: (string | number)[] | undefined, options: PpiOptions): BiasEstimate {
  const totals = clusterTotals([weights, values.map((v, i) => v * weights[i]!)], clusters);
  const [b] = bootstrapTotals(totals, [(t) => t[1]! / t[0]!], options);
  const sum = weights.reduce((s, w) => s + w, 0);
  const equal = values.length > 0 && values.every((v) => v === values[0]);
  const bound = equal ? equalLabelBound(values[0]!, (sum * sum) / weights.reduce((s, w) => s + w * w, 0), options.scale ?? [-100, 100], options.level) : null;
  return { estimate: b!.estimate, ciLow: bound ? Math.min(b!.ciLow, bound.ciLow) : b!.ciLow, ciHigh: bound ? Math.max(b!.ciHigh, bound.ciHigh) : b!.ciHigh, labelled: values.length, clusters: totals.clusters };
}

export interface BiasDifference extends BiasEstimate {
  /** The judge-only Δ (mean over every question both answered). */
  judgeDelta: number;
  /** Share of the judge-only Δ that is the judge's: bias difference ÷ judge-only Δ (null when Δ is 0). */
  shareOfJudgeDelta: number | null;
}

/**
 * Whether the judge's bias differs between a condition and the baseline: the weighted mean over
 * questions labelled in both of (f_c − Y_c) − (f_b − Y_b), with a clustered interval. It is the part
 * of the judge-only Δ that the labels attribute to the judge rather than to the answers.
 */
export function judgeBiasDifference(condition: readonly JudgedAnswer[], baseline: readonly JudgedAnswer[], options: PpiOptions = {}): BiasDifference {
  const { pairs, clusters } = paired(condition, baseline, 'judgeBiasDifference');
  const values: number[] = [];
  const weights: number[] = [];
  const keptClusters: (string | number)[] = [];
  let judgeDelta = 0;
  pairs.forEach(({ c, b }, i) => {
    judgeDelta += c.judge - b.judge;
    const d = c.judge - labelOf(c) - (b.judge - labelOf(b));
    if (Number.isNaN(d)) return;
    values.push(d);
    weights.push(weightOf(c));
    if (clusters) keptClusters.push(clusters[i]!);
  });
  judgeDelta = pairs.length ? judgeDelta / pairs.length : NaN;
  const [low, high] = options.scale ?? [0, 100];
  // A difference of two biases, each on [low − high, high − low].
  const bias = biasOf(values, weights, clusters ? keptClusters : undefined, { ...options, scale: [2 * (low - high), 2 * (high - low)] });
  return { ...bias, judgeDelta, shareOfJudgeDelta: judgeDelta !== 0 && Number.isFinite(judgeDelta) && values.length ? bias.estimate / judgeDelta : null };
}

/** Second moments of judge score and human label (of per-question differences, for a Δ). */
export interface JudgeHumanMoments {
  varJudge: number;
  varHuman: number;
  covariance: number;
}

/** The moments measured on a pilot's labelled answers (pairs where the label is NaN are skipped). Null with fewer than two labels. */
export function momentsOf(judge: ArrayLike<number>, human: ArrayLike<number>): JudgeHumanMoments | null {
  const pairs: [number, number][] = [];
  for (let i = 0; i < judge.length; i++) if (!Number.isNaN(human[i]!)) pairs.push([judge[i]!, human[i]!]);
  const k = pairs.length;
  if (k < 2) return null;
  const mf = pairs.reduce((s, [f]) => s + f, 0) / k;
  const my = pairs.reduce((s, [, y]) => s + y, 0) / k;
  let vf = 0;
  let vy = 0;
  let c = 0;
  for (const [f, y] of pairs) {
    vf += (f - mf) ** 2;
    vy += (y - my) ** 2;
    c += (f - mf) * (y - my);
  }
  return { varJudge: vf / (k - 1), varHuman: vy / (k - 1), covariance: c / (k - 1) };
}

/** The stated assumption when there is no pilot: judge and human scores with the same standard deviation `sd` and correlation `r`. */
export function momentsFromAgreement(sd: number, r: number): JudgeHumanMoments {
  if (!(r >= -1 && r <= 1)) throw new RangeError(`momentsFromAgreement: r must be in [-1, 1], got ${r}`);
  return { varJudge: sd * sd, varHuman: sd * sd, covariance: r * sd * sd };
}

export interface LabelPlanOptions {
  /** Two-sided level of the interval (default 0.95). */
  level?: number;
  /** PPI++'s λ̂ (default) or PPI's λ = 1. */
  tuned?: boolean;
  /** Clustered ÷ plain variance (default 1). */
  designEffect?: number;
}

/**
 * The variance of θ̂_λ with `labelled` of `total` answers labelled (the formula at the top of this
 * file), times the design effect; λ is PPI++'s variance-minimising λ̂, clipped to [0, 1], or 1 (PPI).
 */
export function ppiVariance(moments: JudgeHumanMoments, labelled: number, total: number, options: LabelPlanOptions = {}): number {
  if (!(labelled >= 1 && total >= labelled)) throw new RangeError(`ppiVariance: need 1 ≤ labelled ≤ total, got ${labelled} of ${total}`);
  // λ in the paper's parameterisation: Var(Y − λf)/n + λ²·Var(f)/N′, smallest at Cov ÷ ((1 + n/N′)·Var(f)) = (N′/N)·Cov ÷ Var(f).
  const unlabelled = total - labelled;
  const lambda = unlabelled === 0 ? 0 : options.tuned === false ? 1 : moments.varJudge > 0 ? Math.min(1, Math.max(0, ((unlabelled / total) * moments.covariance) / moments.varJudge)) : 0;
  const rectifier = (moments.varHuman - 2 * lambda * moments.covariance + lambda * lambda * moments.varJudge) / labelled;
  const judged = unlabelled > 0 ? (lambda * lambda * moments.varJudge) / unlabelled : 0;
  return (options.designEffect ?? 1) * (rectifier + judged);
}

/** Full width of the normal interval of θ̂_λ: 2·z_{1−α/2}·√variance. */
export function ppiIntervalWidth(moments: JudgeHumanMoments, labelled: number, total: number, options: LabelPlanOptions = {}): number {
  const level = options.level ?? 0.95;
  return 2 * normalQuantile(1 - (1 - level) / 2) * Math.sqrt(ppiVariance(moments, labelled, total, options));
}

/**
 * The fewest labels (of `total` judged answers) whose corrected interval is at most `targetWidth`
 * wide; null when even labelling every answer is not enough. For a Δ give the moments of per-question
 * differences and the number of paired questions.
 */
export function labelsNeeded(moments: JudgeHumanMoments, total: number, targetWidth: number, options: LabelPlanOptions = {}): number | null {
  if (!(targetWidth > 0)) throw new RangeError(`labelsNeeded: the target width must be > 0, got ${targetWidth}`);
  // The width is not monotone in n in every corner (λ clipped at 1), so scan: total is at most a few thousand questions.
  for (let n = 2; n <= total; n++) if (ppiIntervalWidth(moments, n, total, options) <= targetWidth) return n;
  return null;
}
