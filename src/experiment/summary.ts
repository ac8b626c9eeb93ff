import type { ComparisonFamily, CellMethod, CellSummary, DepthCurve, MeanWithCi, PairedDifference, RunSummary } from '../runFiles/summary.js';
import { pairedBootstrap } from '../scoring/bootstrap.js';
import { clusteredBootstrap } from '../scoring/estimators/clusteredBootstrap.js';
import { signFlipTest } from '../scoring/estimators/pairedTest.js';
import { benjaminiHochbergAdjust, holmAdjust } from '../scoring/estimators/multipleComparisons.js';
import { depthCurve } from '../scoring/estimators/depthCurve.js';
import { reduceSamples, twoStageBootstrap, varianceSplit, type Reducer } from '../scoring/estimators/samples.js';
import { clusterFieldOf, clusterKeyOf } from './clusterKey.js';
import type { MethodCost } from '../methods/trace.js';
import { meanWithCi, seedFor } from './estimates.js';
import { compareModalities } from './modalityComparison.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';

export { seedFor } from './estimates.js';


export interface SummaryOptions {
  experiment: string;
  models: string[];
  conditions: string[];
  baseline: string;
  /** Further conditions to take paired differences against (and, for image conditions, the modality breakdown); default none. */
  versus?: string[];
  resamples: number;
  seed: number;
  /** `scoring.cluster`: the group field to bootstrap over (`none`: questions); default the LongHisDoc volume where records carry one. */
  cluster?: string;
  /** Each strategy label's method (`methodsByStrategy`), named in its cells. */
  methods?: Record<string, CellMethod>;
  /** `scoring.reducer`: how a question's repeated samples become its score (default mean). */
  reducer?: Reducer;
}

function meanOf(values: number[]): number | null {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

/** The cluster key of a record, or none when the run is not clustered. */
type ClusterKey = ((record: RunItemRecord) => string) | null;

/**
 * Repeated samples reduced to one record per model × condition × question (its first sample's,
 * scored by the reducer over its scored samples), and each such record's samples' scores — what
 * the statistics run on; absent in a run with one sample per question.
 */
interface SampleSet {
  reducer: Reducer;
  /** Scores of the scored samples of a reduced record. */
  scoresOf: Map<RunItemRecord, number[]>;
}

const withCi = (records: RunItemRecord[], options: SummaryOptions, salt: string, cluster: ClusterKey, samples?: SampleSet): MeanWithCi => {
  if (!samples || records.length === 0) return meanWithCi(records.map((r) => r.score.score!), options, salt, cluster ? records.map(cluster) : undefined);
  const c = twoStageBootstrap(
    { samples: records.map((r) => samples.scoresOf.get(r)!), ...(cluster ? { clusters: records.map(cluster) } : {}), reducer: samples.reducer },
    { resamples: options.resamples, seed: seedFor(options.seed, salt) },
  );
  return { n: c.n, mean: c.mean, ciLow: c.ciLow, ciHigh: c.ciHigh, ...(cluster ? { clusters: c.clusters, designEffect: c.designEffect } : {}) };
};

/**
 * Per model × condition, each scored question's record (its first scored sample's) and the scores of
 * its scored samples (one without repeated samples): what comparisons across runs pair on
 * (`hisrag compare`).
 */
export function scoredQuestions(records: RunItemRecord[]): Map<string, Map<string, { record: RunItemRecord; scores: number[] }>> {
  const out = new Map<string, Map<string, { record: RunItemRecord; scores: number[] }>>();
  const ordered = [...records].sort((a, b) => (a.sample ?? 0) - (b.sample ?? 0));
  for (const r of ordered) {
    if (!isScored(r)) continue;
    const cell = `${r.model}\u0000${r.condition}`;
    const questions = out.get(cell) ?? out.set(cell, new Map()).get(cell)!;
    const key = `${r.benchmark}:${r.itemId}`;
    const found = questions.get(key);
    if (found) found.scores.push(r.score.score!);
    else questions.set(key, { record: r, scores: [r.score.score!] });
  }
  return out;
}

/** A question's samples (records sorted by key: sample 0 first) reduced to one record; null when the run has one sample per question. */
function reduceSampledRecords(sorted: RunItemRecord[], reducer: Reducer): { records: RunItemRecord[]; samples: SampleSet } | null {
  if (!sorted.some((r) => (r.sample ?? 0) > 0)) return null;
  const byQuestion = new Map<string, RunItemRecord[]>();
  for (const r of sorted) {
    const key = `${r.model}\u0000${r.condition}\u0000${r.benchmark}:${r.itemId}`;
    (byQuestion.get(key) ?? byQuestion.set(key, []).get(key)!).push(r);
  }
  const scoresOf = new Map<RunItemRecord, number[]>();
  const records: RunItemRecord[] = [];
  for (const answers of byQuestion.values()) {
    answers.sort((a, b) => (a.sample ?? 0) - (b.sample ?? 0));
    const scored = answers.filter(isScored);
    const first = scored[0] ?? answers[0]!;
    if (!scored.length) {
      records.push(first);
      continue;
    }
    const scores = scored.map((r) => r.score.score!);
    const reduced: RunItemRecord = { ...first, key: `${first.model}|${first.condition}|${first.benchmark}:${first.itemId}`, score: { ...first.score, score: reduceSamples(scores, reducer) } };
    scoresOf.set(reduced, scores);
    records.push(reduced);
  }
  return { records, samples: { reducer, scoresOf } };
}

/** Mean cost per answer over the records that have one (runs from before methods have none). */
function meanCost(records: RunItemRecord[]): CellSummary['cost'] {
  const costs = records.flatMap((r) => (r.cost ? [r.cost] : []));
  if (costs.length === 0) return null;
  const mean = (pick: (c: MethodCost) => number) => costs.reduce((sum, c) => sum + pick(c), 0) / costs.length;
  return {
    n: costs.length,
    retrievalCalls: mean((c) => c.retrievalCalls),
    generationCalls: mean((c) => c.generationCalls),
    promptTokens: mean((c) => c.promptTokens),
    completionTokens: mean((c) => c.completionTokens),
    durationMs: mean((c) => c.durationMs),
    price: costs.every((c) => c.price !== undefined) ? mean((c) => c.price!) : null,
    estimatedTokens: costs.some((c) => c.estimatedTokens === true),
    ...(costs.some((c) => c.rateLimited || c.rateLimitWaitMs)
      ? { rateLimited: mean((c) => c.rateLimited ?? 0), rateLimitWaitMs: mean((c) => c.rateLimitWaitMs ?? 0) }
      : {}),
    ...(costs.some((c) => c.batchedCalls) ? { batchedCalls: mean((c) => c.batchedCalls ?? 0) } : {}),
  };
}

/** Mean and total of each method figure over the items that answered (failed items carry none). */
function methodFigures(records: RunItemRecord[]): CellSummary['method'] {
  const values: Record<string, number[]> = {};
  const flags = new Set<string>();
  const numbers = new Set<string>();
  for (const r of records) {
    for (const [name, value] of Object.entries(r.methodNotes ?? {})) {
      (values[name] ??= []).push(Number(value));
      (typeof value === 'boolean' ? flags : numbers).add(name);
    }
  }
  return Object.fromEntries(
    Object.keys(values)
      .sort()
      .map((name) => {
        const list = values[name]!;
        const total = list.reduce((a, b) => a + b, 0);
        return [name, { mean: total / list.length, total, n: list.length, flag: flags.has(name) && !numbers.has(name) }];
      }),
  );
}

const isScored = (r: RunItemRecord) => r.score.status === 'scored' && r.score.score !== null;
/** An answer that was empty, whether scored 0 by the benchmark's rule or recorded as failed. */
export const isEmptyAnswer = (r: RunItemRecord) => r.score.rule === 'empty-answer';

/**
 * Aggregates run records into the summary: mean score per model × condition with a bootstrap CI,
 * breakdowns by group, retrieval metrics, and the paired difference of every condition against
 * the baseline on the questions both scored. Records are sorted by key first, so the summary
 * depends only on the set of records, never on the order in which they finished.
 */
export function summarizeRun(records: RunItemRecord[], options: SummaryOptions): RunSummary {
  const sorted = [...records].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const byCellOf = (list: RunItemRecord[]) => {
    const out = new Map<string, RunItemRecord[]>();
    for (const record of list) {
      const key = `${record.model}\u0000${record.condition}`;
      (out.get(key) ?? out.set(key, []).get(key)!).push(record);
    }
    return out;
  };
  // Counts, costs and answer figures are over answers; the statistics over questions (samples reduced).
  const byCell = byCellOf(sorted);
  const reducedRun = reduceSampledRecords(sorted, options.reducer ?? 'mean');
  const questions = reducedRun?.records ?? sorted;
  const samples = reducedRun?.samples;
  const byQuestionCell = reducedRun ? byCellOf(questions) : byCell;

  const clusterField = clusterFieldOf(sorted, options.cluster);
  const cluster: ClusterKey = clusterField ? clusterKeyOf(clusterField) : null;
  const cells: CellSummary[] = [];
  const paired: PairedDifference[] = [];
  const versus: PairedDifference[] = [];
  for (const model of options.models) {
    for (const condition of options.conditions) {
      const list = byCell.get(`${model}\u0000${condition}`);
      if (!list?.length) continue;
      const first = list[0]!;
      const scored = list.filter(isScored);
      const scoredQuestions = reducedRun ? byQuestionCell.get(`${model}\u0000${condition}`)!.filter(isScored) : scored;
      const groups: Record<string, Record<string, RunItemRecord[]>> = {};
      for (const r of scoredQuestions) {
        for (const [groupKey, value] of Object.entries(r.groups)) {
          ((groups[groupKey] ??= {})[value] ??= []).push(r);
        }
      }
      const byGroup: CellSummary['byGroup'] = {};
      for (const groupKey of Object.keys(groups).sort()) {
        byGroup[groupKey] = {};
        for (const value of Object.keys(groups[groupKey]!).sort()) {
          byGroup[groupKey]![value] = withCi(groups[groupKey]![value]!, options, `${model}|${condition}|${groupKey}|${value}`, cluster, samples);
        }
      }
      const metricSums: Record<string, number[]> = {};
      for (const r of list) {
        for (const [name, value] of Object.entries(r.retrievalMetrics ?? {})) (metricSums[name] ??= []).push(value);
      }
      const extraSums: Record<string, number[]> = {};
      for (const r of scored) {
        for (const [name, value] of Object.entries(r.score.extra ?? {})) (extraSums[name] ??= []).push(value);
      }
      const meanRecord = (sums: Record<string, number[]>) =>
        Object.fromEntries(Object.keys(sums).sort().map((name) => [name, meanOf(sums[name]!)!]));
      cells.push({
        model,
        condition,
        strategy: first.strategy,
        ...(options.methods?.[first.strategy] ? { methodSpec: options.methods[first.strategy] } : {}),
        retriever: first.retriever,
        k: first.k,
        items: list.length,
        scored: scored.length,
        failed: {
          generation: list.filter((r) => r.score.status === 'generation_failed').length,
          judge: list.filter((r) => r.score.status === 'judge_failed').length,
        },
        empty: list.filter(isEmptyAnswer).length,
        rerankFallbacks: list.filter((r) => r.retrieved.some((chunk) => chunk.rerankFallback !== undefined)).length,
        metric: [...new Set(list.map((r) => r.score.metric))].sort().join('+'),
        score: withCi(scoredQuestions, options, `${model}|${condition}`, cluster, samples),
        scoreRaw: meanOf(scored.map((r) => r.score.scoreRaw ?? r.score.score!)),
        byGroup,
        retrieval: Object.keys(metricSums).length ? meanRecord(metricSums) : null,
        extra: meanRecord(extraSums),
        truncatedItems: list.filter((r) => r.truncated > 0).length,
        cost: meanCost(scored),
        method: methodFigures(list),
        ...(samples && scoredQuestions.length ? { sampling: samplingOf(scoredQuestions, samples, cluster) } : {}),
      });
    }

    paired.push(...pairedAgainst(byQuestionCell, model, options.baseline, options, cluster, samples));
    for (const reference of options.versus ?? []) versus.push(...pairedAgainst(byQuestionCell, model, reference, options, cluster, samples));
  }
  const families = [adjustFamily(paired, options.baseline, options.models.length), ...(options.versus ?? []).map((v) => adjustFamily(versus, v, options.models.length))];
  const curves = depthCurves(cells, byQuestionCell, options, cluster);

  return {
    experiment: options.experiment,
    baseline: options.baseline,
    bootstrap: { resamples: options.resamples, seed: options.seed, confidence: 0.95 },
    models: options.models,
    conditions: options.conditions,
    totals: {
      items: sorted.length,
      scored: sorted.filter(isScored).length,
      generationFailed: sorted.filter((r) => r.score.status === 'generation_failed').length,
      judgeFailed: sorted.filter((r) => r.score.status === 'judge_failed').length,
      empty: sorted.filter(isEmptyAnswer).length,
    },
    cells,
    paired,
    ...(options.versus?.length ? { versusConditions: options.versus, versus } : {}),
    ...withModalities(compareModalities(questions, { ...options, versus: options.versus ?? [], cluster })),
    cluster: clusterField,
    families,
    ...(curves.length ? { depthCurves: curves } : {}),
  };
}

/**
 * Holm- and Benjamini–Hochberg-adjusted p-values over every difference against `reference` in the
 * run (all models, all conditions): the family a reader scans for "what beats closed-book". Sets
 * `pHolm`, `pBH` and `family` on the differences in place; returns the family.
 */
function adjustFamily(differences: PairedDifference[], reference: string, models: number): ComparisonFamily {
  const members = differences.filter((d) => d.baseline === reference && d.p !== undefined && d.p !== null);
  const name = `${members.length} differences vs ${reference} (${models > 1 ? `${models} models × ` : ''}conditions)`;
  const p = members.map((d) => d.p!);
  const holm = holmAdjust(p);
  const bh = benjaminiHochbergAdjust(p);
  members.forEach((d, i) => Object.assign(d, { pHolm: holm[i]!, pBH: bh[i]!, family: name }));
  return { name, reference, size: members.length };
}

/**
 * Per model × strategy × retriever measured at two depths or more: the depth curve's shape on the
 * questions scored at every depth (`depthCurve`: slope over ln k, best k and its probability,
 * deepest − best), bootstrapped over the run's clusters.
 */
function depthCurves(cells: CellSummary[], byCell: Map<string, RunItemRecord[]>, options: SummaryOptions, cluster: ClusterKey): DepthCurve[] {
  const series = new Map<string, CellSummary[]>();
  for (const cell of cells) {
    if (cell.k === null) continue;
    const key = `${cell.model}\u0000${cell.strategy}\u0000${cell.retriever ?? ''}`;
    (series.get(key) ?? series.set(key, []).get(key)!).push(cell);
  }
  const out: DepthCurve[] = [];
  for (const list of series.values()) {
    const depths = [...new Set(list.map((c) => c.k!))].sort((a, b) => a - b);
    // Two conditions at one depth (e.g. two rerankers over one retriever) are not one curve.
    if (depths.length < 2 || depths.length !== list.length) continue;
    const ordered = depths.map((k) => list.find((c) => c.k === k)!);
    const scoresByDepth = ordered.map((c) => new Map(byCell.get(`${c.model}\u0000${c.condition}`)!.filter(isScored).map((r) => [`${r.benchmark}:${r.itemId}`, r])));
    const keys = [...scoresByDepth[0]!.keys()].filter((key) => scoresByDepth.every((m) => m.has(key)));
    if (!keys.length) continue;
    const first = ordered[0]!;
    const curve = depthCurve(
      depths,
      keys.map((key) => scoresByDepth.map((m) => m.get(key)!.score.score!)),
      cluster ? keys.map((key) => cluster(scoresByDepth[0]!.get(key)!)) : undefined,
      { resamples: options.resamples, seed: seedFor(options.seed, `${first.model}|${first.strategy}|${first.retriever ?? ''}|depth`) },
    );
    out.push({
      model: first.model,
      strategy: first.strategy,
      retriever: first.retriever,
      conditions: ordered.map((c) => c.condition),
      depths: curve.depths,
      means: curve.means,
      n: curve.n,
      ...(cluster ? { clusters: curve.clusters } : {}),
      slope: curve.slope,
      bestK: curve.bestK,
      probabilityBest: curve.probabilityBest,
      deepestMinusBest: curve.deepestMinusBest,
      deepestBelowBest: curve.deepestBelowBest,
    });
  }
  return out;
}

const withModalities = (list: ReturnType<typeof compareModalities>) => (list.length ? { byModality: list } : {});

/** A cell's variance split (between questions, within: the model's sampling) and its effective number of questions. */
function samplingOf(questions: RunItemRecord[], samples: SampleSet, cluster: ClusterKey): NonNullable<CellSummary['sampling']> {
  const split = varianceSplit(questions.map((r) => samples.scoresOf.get(r)!), samples.reducer, cluster ? questions.map(cluster) : undefined);
  return { reducer: samples.reducer, ...split };
}

/**
 * Every condition of one model against a reference condition, on the questions both scored (paired
 * bootstrap; with repeated samples the two-stage one, each side's samples redrawn within its question).
 */
function pairedAgainst(byCell: Map<string, RunItemRecord[]>, model: string, reference: string, options: SummaryOptions, cluster: ClusterKey, samples?: SampleSet): PairedDifference[] {
  const baseline = byCell.get(`${model}\u0000${reference}`);
  if (!baseline) return [];
  const out: PairedDifference[] = [];
  const baselineRecords = new Map(baseline.filter(isScored).map((r) => [`${r.benchmark}:${r.itemId}`, r]));
  for (const condition of options.conditions) {
    if (condition === reference) continue;
    const list = byCell.get(`${model}\u0000${condition}`);
    if (!list) continue;
    const a: number[] = [];
    const b: number[] = [];
    const keys: string[] = [];
    const aSamples: number[][] = [];
    const bSamples: number[][] = [];
    for (const r of list.filter(isScored)) {
      const base = baselineRecords.get(`${r.benchmark}:${r.itemId}`);
      if (base === undefined) continue;
      a.push(r.score.score!);
      b.push(base.score.score!);
      if (samples) {
        aSamples.push(samples.scoresOf.get(r)!);
        bSamples.push(samples.scoresOf.get(base)!);
      }
      if (cluster) keys.push(cluster(r));
    }
    if (a.length === 0) {
      out.push({ model, condition, baseline: reference, n: 0, meanDiff: null, ciLow: null, ciHigh: null, sharePositive: null });
      continue;
    }
    // The baseline's salt is the one runs have always used, so their intervals do not move.
    const salt = reference === options.baseline ? `${model}|${condition}|paired` : `${model}|${condition}|paired|${reference}`;
    const bootstrap = { resamples: options.resamples, seed: seedFor(options.seed, salt) };
    const diffs = a.map((x, i) => x - b[i]!);
    // With samples the test flips each question's reduced difference: its samples move together.
    const test = signFlipTest(diffs, cluster ? keys : undefined, { seed: seedFor(options.seed, `${salt}|test`) });
    if (samples) {
      const d = twoStageBootstrap({ samples: aSamples, minus: bSamples, ...(cluster ? { clusters: keys } : {}), reducer: samples.reducer }, bootstrap);
      out.push({ model, condition, baseline: reference, n: a.length, meanDiff: d.mean, ciLow: d.ciLow, ciHigh: d.ciHigh, sharePositive: d.sharePositive, ...(cluster ? { clusters: d.clusters, designEffect: d.designEffect } : {}), p: test.p });
      continue;
    }
    if (cluster) {
      const d = clusteredBootstrap(diffs, keys, bootstrap);
      out.push({ model, condition, baseline: reference, n: a.length, meanDiff: d.mean, ciLow: d.ciLow, ciHigh: d.ciHigh, sharePositive: d.sharePositive, clusters: d.clusters, designEffect: d.designEffect, p: test.p });
      continue;
    }
    const d = pairedBootstrap(a, b, bootstrap);
    out.push({ model, condition, baseline: reference, n: a.length, meanDiff: d.meanDiff, ciLow: d.ciLow, ciHigh: d.ciHigh, sharePositive: d.sharePositive, p: test.p });
  }
  return out;
}
