/**
 * The one entry point every surface asks for a run's figures (the summary, the terminal table, the
 * report, the viewer, `hisrag compare`, the library API): means, paired differences, families,
 * breakdowns and depth curves over plain observations, under one `StatisticsSettings` decided once
 * from the run's settings. Each estimate is seeded by the run's seed hashed with a salt naming it
 * (`salts`), and its observations are put in one canonical order (by item key), so the same
 * comparison gives the same interval and p to the last digit whoever asks.
 */
import { pairedBootstrap, summarizeScores } from './bootstrap.js';
import { clusteredBootstrap } from './clusteredBootstrap.js';
import { depthCurve, type DepthCurveEstimate } from './depthCurve.js';
import { benjaminiHochbergAdjust, holmAdjust } from './multipleComparisons.js';
import { signFlipTest } from './pairedTest.js';
import { reduceSamples, twoStageBootstrap, varianceSplit, type Reducer, type VarianceSplit } from './samples.js';

/** One scored answer: a question (`itemKey`), its condition, which sample it is, its score and its cluster (none: the question is its own). */
export interface Observation {
  itemKey: string;
  condition: string;
  sample: number;
  score: number;
  cluster?: string;
}

/** How every interval of a run is computed, decided once from its settings. */
export interface StatisticsSettings {
  /** The field intervals are clustered over (`scoring.cluster`, resolved); null: over questions. Each observation carries its key. */
  cluster: string | null;
  /** The run answers a question more than once (`samples: n` > 1): intervals are two-stage (clusters, then samples). */
  repeatedSamples: boolean;
  reducer: Reducer;
  seed: number;
  resamples: number;
  confidence: number;
}

/** A per-estimate seed: the run's seed hashed (FNV-1a) with a salt naming the estimate. */
export function seedFor(seed: number, salt: string): number {
  let h = seed >>> 0;
  for (let i = 0; i < salt.length; i++) h = Math.imul(h ^ salt.charCodeAt(i), 16777619) >>> 0;
  return h;
}

/** The names estimates are seeded by, one place for every surface (a changed salt moves an interval). */
export const salts = {
  cell: (model: string, condition: string) => `${model}|${condition}`,
  group: (model: string, condition: string, key: string, value: string) => `${model}|${condition}|${key}|${value}`,
  /** condition − reference within a run; against the run's baseline the salt runs have always used. */
  paired: (model: string, condition: string, reference: string, baseline: string) => (reference === baseline ? `${model}|${condition}|paired` : `${model}|${condition}|paired|${reference}`),
  /** B − A across two runs (`hisrag compare`), seeded by run B's seed. */
  acrossRuns: (model: string, condition: string) => `${model}|${condition}|compare`,
  depth: (model: string, strategy: string, retriever: string | null) => `${model}|${strategy}|${retriever ?? ''}|depth`,
  /** A per-answer retrieval metric's mean in a cell (the span metrics). */
  retrievalMetric: (model: string, condition: string, metric: string) => `${model}|${condition}|retrieval|${metric}`,
};

/** A question: its samples' scores (in sample order) and its cluster key. */
export interface Question {
  itemKey: string;
  cluster: string | undefined;
  scores: number[];
}

const byItemKey = (a: { itemKey: string }, b: { itemKey: string }) => (a.itemKey < b.itemKey ? -1 : a.itemKey > b.itemKey ? 1 : 0);

/** Observations gathered by question, in item-key order (the canonical order of every estimate). */
export function questionsOf(observations: readonly Observation[]): Question[] {
  const byItem = new Map<string, { cluster: string | undefined; samples: { sample: number; score: number }[] }>();
  for (const o of observations) {
    const found = byItem.get(o.itemKey) ?? byItem.set(o.itemKey, { cluster: o.cluster, samples: [] }).get(o.itemKey)!;
    found.samples.push({ sample: o.sample, score: o.score });
  }
  return [...byItem.entries()]
    .map(([itemKey, q]) => ({ itemKey, cluster: q.cluster, scores: q.samples.sort((a, b) => a.sample - b.sample).map((s) => s.score) }))
    .sort(byItemKey);
}

export interface MeanEstimate {
  n: number;
  mean: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  /** Clusters resampled; absent when not clustered. */
  clusters?: number;
  designEffect?: number | null;
}

const optionsOf = (settings: StatisticsSettings, salt: string) => ({ resamples: settings.resamples, seed: seedFor(settings.seed, salt), level: settings.confidence });
const clustersOf = (settings: StatisticsSettings, questions: readonly Question[]) => (settings.cluster ? questions.map((q) => q.cluster ?? `\u0000${q.itemKey}`) : undefined);

/**
 * A condition's mean score over its questions (samples reduced by the reducer) with its interval:
 * the two-stage bootstrap (clusters, then each question's samples) with repeated samples, the
 * cluster bootstrap without, the plain percentile bootstrap over questions when neither applies.
 */
export function conditionMean(observations: readonly Observation[], settings: StatisticsSettings, salt: string): MeanEstimate {
  return meanOfQuestions(questionsOf(observations), settings, salt);
}

function meanOfQuestions(questions: readonly Question[], settings: StatisticsSettings, salt: string): MeanEstimate {
  if (questions.length === 0) return { n: 0, mean: null, ciLow: null, ciHigh: null };
  const clusters = clustersOf(settings, questions);
  const options = optionsOf(settings, salt);
  if (settings.repeatedSamples) {
    const c = twoStageBootstrap({ samples: questions.map((q) => q.scores), ...(clusters ? { clusters } : {}), reducer: settings.reducer }, options);
    return { n: c.n, mean: c.mean, ciLow: c.ciLow, ciHigh: c.ciHigh, ...(clusters ? { clusters: c.clusters, designEffect: c.designEffect } : {}) };
  }
  const values = questions.map((q) => reduceSamples(q.scores, settings.reducer));
  if (clusters) {
    const c = clusteredBootstrap(values, clusters, options);
    return { n: values.length, mean: c.mean, ciLow: c.ciLow, ciHigh: c.ciHigh, clusters: c.clusters, designEffect: c.designEffect };
  }
  const s = summarizeScores(values, options);
  return { n: values.length, mean: s.mean, ciLow: s.ciLow, ciHigh: s.ciHigh };
}

/** Means per value of each group key: `groupOf(itemKey)` gives a question's groups (category, type …). */
export function groupBreakdown(
  observations: readonly Observation[],
  groupOf: (itemKey: string) => Record<string, string>,
  settings: StatisticsSettings,
  saltOf: (key: string, value: string) => string,
): Record<string, Record<string, MeanEstimate>> {
  const groups: Record<string, Record<string, Question[]>> = {};
  for (const q of questionsOf(observations)) {
    for (const [key, value] of Object.entries(groupOf(q.itemKey))) ((groups[key] ??= {})[value] ??= []).push(q);
  }
  const out: Record<string, Record<string, MeanEstimate>> = {};
  for (const key of Object.keys(groups).sort()) {
    out[key] = {};
    for (const value of Object.keys(groups[key]!).sort()) out[key]![value] = meanOfQuestions(groups[key]![value]!, settings, saltOf(key, value));
  }
  return out;
}

/** The variance split of a condition's scores (between questions, within: the model's sampling). */
export function samplingOf(observations: readonly Observation[], settings: StatisticsSettings): VarianceSplit {
  const questions = questionsOf(observations);
  return varianceSplit(
    questions.map((q) => q.scores),
    settings.reducer,
    clustersOf(settings, questions),
  );
}

export interface DifferenceEstimate {
  /** Questions both sides scored. */
  n: number;
  meanDiff: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  /** Share of resamples in which the difference is > 0. */
  sharePositive: number | null;
  clusters?: number;
  designEffect?: number | null;
  /** Two-sided p of "no difference": the paired sign-flip test, whole clusters flipped together. */
  p: number | null;
}

/**
 * B − A on the questions both scored (paired by item key; a question's cluster is B's): the
 * interval from the two-stage bootstrap with repeated samples (each side's samples redrawn within
 * its question), the paired cluster bootstrap without, the paired percentile bootstrap when neither
 * applies; p from the sign-flip test on the questions' reduced differences.
 */
export function pairedDifference(b: readonly Observation[], a: readonly Observation[], settings: StatisticsSettings, salt: string): DifferenceEstimate {
  const inA = new Map(questionsOf(a).map((q) => [q.itemKey, q]));
  const qb: Question[] = [];
  const qa: Question[] = [];
  for (const q of questionsOf(b)) {
    const other = inA.get(q.itemKey);
    if (!other) continue;
    qb.push(q);
    qa.push(other);
  }
  if (qb.length === 0) return { n: 0, meanDiff: null, ciLow: null, ciHigh: null, sharePositive: null, p: null };
  const clusters = clustersOf(settings, qb);
  const options = optionsOf(settings, salt);
  const diffs = qb.map((q, i) => reduceSamples(q.scores, settings.reducer) - reduceSamples(qa[i]!.scores, settings.reducer));
  const test = signFlipTest(diffs, clusters, { seed: seedFor(settings.seed, `${salt}|test`) });
  const clustered = (d: { clusters: number; designEffect: number | null }) => (clusters ? { clusters: d.clusters, designEffect: d.designEffect } : {});
  if (settings.repeatedSamples) {
    const d = twoStageBootstrap({ samples: qb.map((q) => q.scores), minus: qa.map((q) => q.scores), ...(clusters ? { clusters } : {}), reducer: settings.reducer }, options);
    return { n: d.n, meanDiff: d.mean, ciLow: d.ciLow, ciHigh: d.ciHigh, sharePositive: d.sharePositive, ...clustered(d), p: test.p };
  }
  if (clusters) {
    const d = clusteredBootstrap(diffs, clusters, options);
    return { n: d.n, meanDiff: d.mean, ciLow: d.ciLow, ciHigh: d.ciHigh, sharePositive: d.sharePositive, ...clustered(d), p: test.p };
  }
  const d = pairedBootstrap(
    qb.map((q) => reduceSamples(q.scores, settings.reducer)),
    qa.map((q) => reduceSamples(q.scores, settings.reducer)),
    options,
  );
  return { n: d.n, meanDiff: d.meanDiff, ciLow: d.ciLow, ciHigh: d.ciHigh, sharePositive: d.sharePositive, p: test.p };
}

/** Holm- and Benjamini–Hochberg-adjusted p over a family, in the order given (null p: not in the family, stays null). */
export function adjustFamily(pValues: readonly (number | null)[]): { holm: (number | null)[]; bh: (number | null)[] } {
  const members = pValues.flatMap((p, i) => (p === null || Number.isNaN(p) ? [] : [i]));
  const holm = holmAdjust(members.map((i) => pValues[i]!));
  const bh = benjaminiHochbergAdjust(members.map((i) => pValues[i]!));
  const out = { holm: pValues.map(() => null as number | null), bh: pValues.map(() => null as number | null) };
  members.forEach((index, j) => {
    out.holm[index] = holm[j]!;
    out.bh[index] = bh[j]!;
  });
  return out;
}

/**
 * The shape of a score-vs-depth curve: `byDepth[j]` the observations at `depths[j]` (ascending), on
 * the questions scored at every depth (samples reduced), bootstrapped over the run's clusters.
 * Null when no question was scored at every depth.
 */
export function depthCurveOf(depths: readonly number[], byDepth: readonly (readonly Observation[])[], settings: StatisticsSettings, salt: string): DepthCurveEstimate | null {
  const perDepth = byDepth.map((obs) => new Map(questionsOf(obs).map((q) => [q.itemKey, q])));
  const questions = [...perDepth[0]!.values()].filter((q) => perDepth.every((m) => m.has(q.itemKey)));
  if (!questions.length) return null;
  return depthCurve(
    depths,
    questions.map((q) => perDepth.map((m) => reduceSamples(m.get(q.itemKey)!.scores, settings.reducer))),
    clustersOf(settings, questions),
    optionsOf(settings, salt),
  );
}
