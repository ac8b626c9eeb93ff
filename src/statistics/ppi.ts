/**
 * Judge scores checked against people: a condition's mean and a paired Δ corrected with human
 * labels on a random subset of the judged answers (prediction-powered inference, Angelopoulos,
 * Bates, Fannjiang, Jordan & Zrnic, Science 2023; power-tuned PPI++, Angelopoulos, Duchi & Zrnic
 * 2023), the labels-only and judge-only estimates beside it, the judge's bias per condition and its
 * difference between a condition and the baseline, and the labels a target interval width needs.
 *
 * Notation: N judged answers with judge scores f, of which a random n also carry a human label Y
 * (the labelled answers are judged too, so they are part of the N). For a weight λ,
 *   θ̂_λ = λ·mean_N(f) − mean_n(λf − Y) = mean_n(Y) + λ·(mean_N(f) − mean_n(f)),
 * unbiased for E[Y] whatever λ; λ = 1 is PPI, λ = 0 the labels alone. Its variance is
 *   Var(Y − λ(1−ρ)f)/n + λ²(1−ρ)²·Var(f)/(N − n),   ρ = n/N,
 * smallest at λ = Cov(Y, f) ÷ Var(f). That is PPI++'s λ̂ = Cov(Y, f) ÷ ((1 + n/N′)·Var(f)) written
 * for this design: PPI++ states it with N′ answers judged but unlabelled, and its estimator on the
 * unlabelled answers alone is this one with its λ = ours × (1 − ρ) = ours × N′/(N′ + n). λ̂ is
 * clipped to [0, 1], so the estimate never leans on the judge more than PPI does nor less than
 * the labels alone do.
 */
import type { BootstrapOptions, Interval } from './bootstrap.js';
import { clusteredBootstrap } from './clusteredBootstrap.js';
import { bootstrapTotals, clusterTotals, grandTotals } from './clusterTotals.js';
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
}

export interface PredictionPoweredEstimate {
  /** Answers judged (N). */
  n: number;
  /** Of them, labelled (n). */
  labelled: number;
  clusters: number;
  /** mean_N(f): what a table of judge scores alone reports. */
  judgeOnly: Interval;
  /** mean_n(Y): the labels alone. */
  labelsOnly: Interval;
  /** PPI (λ = 1): mean_N(f) − mean_n(f − Y). */
  ppi: Interval;
  /** PPI++ (λ̂, clipped to [0, 1]); `lambda` the weight on the data as observed. */
  ppiPlusPlus: Interval & { lambda: number };
}

// Columns summed per cluster: every answer, then the labelled ones (L = 1 when labelled).
const N = 0;
const F = 1;
const FF = 2;
const L = 3;
const LF = 4;
const LY = 5;
const LFY = 6;

/** λ̂ = Cov_n(Y, f) ÷ Var_N(f), clipped to [0, 1]; 0 when either is undefined (fewer than two labels, a constant judge). */
function tunedLambda(t: Float64Array): number {
  if (t[L]! < 2 || t[N]! < 2) return 0;
  const covariance = (t[LFY]! - (t[LF]! * t[LY]!) / t[L]!) / (t[L]! - 1);
  const variance = (t[FF]! - (t[F]! * t[F]!) / t[N]!) / (t[N]! - 1);
  if (!(variance > 0)) return 0;
  return Math.min(1, Math.max(0, covariance / variance));
}

const weighted = (t: Float64Array, lambda: number) => t[LY]! / t[L]! + lambda * (t[F]! / t[N]! - t[LF]! / t[L]!);
const judgeMean = (t: Float64Array) => t[F]! / t[N]!;
const labelMean = (t: Float64Array) => (t[L]! > 0 ? t[LY]! / t[L]! : NaN);
const ppiMean = (t: Float64Array) => (t[L]! > 0 ? weighted(t, 1) : NaN);
const ppiPlusPlusMean = (t: Float64Array) => (t[L]! > 0 ? weighted(t, tunedLambda(t)) : NaN);

/**
 * The four estimates of a mean from per-answer vectors (`human[i]` NaN: not labelled), with
 * clustered percentile intervals. The interval is the cluster bootstrap of the labelled and the
 * unlabelled answers jointly: each resample draws whole clusters, with their judged answers and
 * their labels together, and recomputes λ̂ in the resample. Chosen over the clustered CLT variance
 * because the labelled answers are a subset of the judged ones in the same clusters (the two means
 * are correlated through shared clusters, a cross term the CLT formula would need by hand), λ̂'s own
 * variability is carried into the interval, and it is the same resampling as every other interval
 * of `statistics/`. The labels must be a random sample of the answers (within clusters or overall);
 * a resample's labelled count varies as a random sample's would.
 */
export function predictionPowered(judge: ArrayLike<number>, human: ArrayLike<number>, clusters: ArrayLike<string | number> | undefined, options: BootstrapOptions = {}): PredictionPoweredEstimate {
  const n = judge.length;
  if (human.length !== n) throw new Error(`predictionPowered: ${n} judge scores but ${human.length} human labels`);
  const columns = Array.from({ length: 7 }, () => new Float64Array(n));
  let labelled = 0;
  for (let i = 0; i < n; i++) {
    const f = judge[i]!;
    const y = human[i]!;
    if (!Number.isFinite(f)) throw new Error(`predictionPowered: judge score ${i} is ${f}`);
    columns[N]![i] = 1;
    columns[F]![i] = f;
    columns[FF]![i] = f * f;
    if (Number.isNaN(y)) continue;
    labelled++;
    columns[L]![i] = 1;
    columns[LF]![i] = f;
    columns[LY]![i] = y;
    columns[LFY]![i] = f * y;
  }
  const totals = clusterTotals(columns, clusters);
  const [judgeOnly, labelsOnly, ppi, tuned] = bootstrapTotals(totals, [judgeMean, labelMean, ppiMean, ppiPlusPlusMean], options).map(
    ({ estimate, ciLow, ciHigh }) => ({ estimate, ciLow, ciHigh }),
  );
  return { n, labelled, clusters: totals.clusters, judgeOnly: judgeOnly!, labelsOnly: labelsOnly!, ppi: ppi!, ppiPlusPlus: { ...tuned!, lambda: tunedLambda(grandTotals(totals)) } };
}

const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const labelOf = (a: JudgedAnswer) => (a.human === undefined || a.human === null ? NaN : a.human);

function uniqueByKey(answers: readonly JudgedAnswer[], what: string): JudgedAnswer[] {
  const sorted = [...answers].sort(byKey);
  for (let i = 1; i < sorted.length; i++) if (sorted[i]!.key === sorted[i - 1]!.key) throw new Error(`${what}: question ${sorted[i]!.key} appears twice (reduce repeated samples first)`);
  return sorted;
}

/** A condition's mean: judge-only, labels-only, PPI and PPI++ with clustered intervals (answers in key order: the same interval whatever order they come in). */
export function correctedMean(answers: readonly JudgedAnswer[], options: BootstrapOptions = {}): PredictionPoweredEstimate {
  const sorted = uniqueByKey(answers, 'correctedMean');
  const clustered = sorted.some((a) => a.cluster !== undefined);
  return predictionPowered(
    sorted.map((a) => a.judge),
    sorted.map(labelOf),
    clustered ? sorted.map((a) => a.cluster ?? `\u0000${a.key}`) : undefined,
    options,
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
 * question are labelled (the labels must be drawn on the same questions for both conditions).
 */
export function correctedDifference(condition: readonly JudgedAnswer[], baseline: readonly JudgedAnswer[], options: BootstrapOptions = {}): CorrectedDifference {
  const { pairs, clusters } = paired(condition, baseline, 'correctedDifference');
  let labelledOnOneSide = 0;
  const human = pairs.map(({ c, b }) => {
    const y = labelOf(c) - labelOf(b);
    if (Number.isNaN(y) && !(Number.isNaN(labelOf(c)) && Number.isNaN(labelOf(b)))) labelledOnOneSide++;
    return y;
  });
  const estimate = predictionPowered(
    pairs.map(({ c, b }) => c.judge - b.judge),
    human,
    clusters,
    options,
  );
  return { ...estimate, labelledOnOneSide };
}

export interface BiasEstimate extends Interval {
  /** Labelled answers (questions, for a difference) it is computed on. */
  labelled: number;
  clusters: number;
  designEffect: number | null;
}

/** The judge's bias on a condition: mean(judge − human) over its labelled answers, with a clustered interval. */
export function judgeBias(answers: readonly JudgedAnswer[], options: BootstrapOptions = {}): BiasEstimate {
  const labelled = uniqueByKey(answers, 'judgeBias').filter((a) => !Number.isNaN(labelOf(a)));
  const clustered = labelled.some((a) => a.cluster !== undefined);
  return biasOf(
    labelled.map((a) => a.judge - labelOf(a)),
    clustered ? labelled.map((a) => a.cluster ?? `\u0000${a.key}`) : undefined,
    options,
  );
}

function biasOf(values: number[], clusters: (string | number)[] | undefined, options: BootstrapOptions): BiasEstimate {
  const b = clusteredBootstrap(values, clusters, options);
  return { estimate: b.mean, ciLow: b.ciLow, ciHigh: b.ciHigh, labelled: b.n, clusters: b.clusters, designEffect: b.designEffect };
}

export interface BiasDifference extends BiasEstimate {
  /** The judge-only Δ (mean over every question both answered). */
  judgeDelta: number;
  /** Share of the judge-only Δ that is the judge's: bias difference ÷ judge-only Δ (null when Δ is 0). */
  shareOfJudgeDelta: number | null;
}

/**
 * Whether the judge's bias differs between a condition and the baseline: mean over questions
 * labelled in both of (f_c − Y_c) − (f_b − Y_b), with a clustered interval. It is the part of the
 * judge-only Δ that the labels attribute to the judge rather than to the answers.
 */
export function judgeBiasDifference(condition: readonly JudgedAnswer[], baseline: readonly JudgedAnswer[], options: BootstrapOptions = {}): BiasDifference {
  const { pairs, clusters } = paired(condition, baseline, 'judgeBiasDifference');
  const values: number[] = [];
  const keptClusters: (string | number)[] = [];
  let judgeDelta = 0;
  pairs.forEach(({ c, b }, i) => {
    judgeDelta += c.judge - b.judge;
    const d = c.judge - labelOf(c) - (b.judge - labelOf(b));
    if (Number.isNaN(d)) return;
    values.push(d);
    if (clusters) keptClusters.push(clusters[i]!);
  });
  judgeDelta = pairs.length ? judgeDelta / pairs.length : NaN;
  const bias = biasOf(values, clusters ? keptClusters : undefined, options);
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
 * file), times the design effect; λ is the variance-minimising Cov ÷ Var(f), clipped to [0, 1], or 1.
 */
export function ppiVariance(moments: JudgeHumanMoments, labelled: number, total: number, options: LabelPlanOptions = {}): number {
  if (!(labelled >= 1 && total >= labelled)) throw new RangeError(`ppiVariance: need 1 ≤ labelled ≤ total, got ${labelled} of ${total}`);
  const lambda = options.tuned === false ? 1 : moments.varJudge > 0 ? Math.min(1, Math.max(0, moments.covariance / moments.varJudge)) : 0;
  const a = lambda * (1 - labelled / total);
  const rectifier = (moments.varHuman - 2 * a * moments.covariance + a * a * moments.varJudge) / labelled;
  const judged = total > labelled ? (a * a * moments.varJudge) / (total - labelled) : 0;
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
