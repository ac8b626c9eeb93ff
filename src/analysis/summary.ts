import { metricInfo, runMetric } from '../scoring/metrics.js';
import { z } from 'zod';
import { adjustFamily as adjustedP, conditionMean, depthCurveOf, groupBreakdown, pairedDifference, salts, samplingOf } from '../statistics/run.js';
import type { MethodCost } from '../runFiles/trace.js';
import type { CellMethod, CellSummary, ComparisonFamilySchema, DepthCurve, JudgeCheckSummary, PairedDifference, RunSummary } from '../runFiles/summary.js';
import type { AnswerLabel } from '../runFiles/labels.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import type { Reducer } from '../statistics/samples.js';
import { checkJudge, judgeCheckSummary } from './judgeCheck.js';
import { compareModalities } from './modalityComparison.js';
import { corpusOfChunks, DEPTH_FAMILY_REFERENCE, depthFamilyComparisons, depthFamilyName, type DepthPoint } from './depthFamilies.js';
import { isScored, itemKeyOf, runStatistics, type RunStatistics } from './observations.js';
import { spanRetrievalOf } from './spanRetrieval.js';
import { groupBy } from '../diagnostics/groupBy.js';

export type { CellMethod };

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
  /** The human labels beside the answers (`labels/`): with any, the summary gains `judgeCheck` (figures corrected with them). */
  labels?: readonly AnswerLabel[];
  /** The label draw's inclusion probability per question (`labels/sample.json`): the corrected figures weight labels by 1/π. */
  labelInclusion?: ReadonlyMap<string, number>;
}


function meanOf(values: number[]): number | null {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

/** The mean of each named figure over the records that carry it, by name in sorted order. */
function meansByName(figures: (Record<string, number> | undefined)[]): Record<string, number> {
  const values: Record<string, number[]> = {};
  for (const record of figures) for (const [name, value] of Object.entries(record ?? {})) (values[name] ??= []).push(value);
  return Object.fromEntries(Object.keys(values).sort().map((name) => [name, meanOf(values[name]!)!]));
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

/** Mean context per answer (chunks placed, their tokens) and the corpus the chunks come from, over the records that carry them. */
function contextOf(records: RunItemRecord[]): Pick<CellSummary, 'context' | 'corpus'> {
  const used = records.flatMap((r) => (r.context ? [r.context] : []));
  const corpus = corpusOfChunks(records.flatMap((r) => r.retrieved.map((chunk) => chunk.id)));
  // One model's records share its tokenizer: the unit of the first is the cell's (none: the estimate).
  const unit = used[0]?.unit;
  return {
    ...(used.length ? { context: { n: used.length, chunks: meanOf(used.map((c) => c.chunks))!, tokens: meanOf(used.map((c) => c.tokens))!, ...(unit ? { unit } : {}) } } : {}),
    ...(corpus ? { corpus } : {}),
  };
}

/** An answer that was empty, whether scored 0 by the benchmark's rule or recorded as failed. */
export const isEmptyAnswer = (r: RunItemRecord) => r.score.rule === 'empty-answer';

const cellKey = (model: string, condition: string) => `${model}\u0000${condition}`;

/**
 * The run's summary, every figure through `statistics/run.ts` under one `StatisticsSettings`. Records
 * are sorted by key first, so the summary depends on the set of records, not the order they finished in.
 */
export function summarizeRun(records: RunItemRecord[], options: SummaryOptions): RunSummary {
  const sorted = [...records].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const stats = runStatistics(sorted, options);
  const byCell = groupBy(sorted, (r) => cellKey(r.model, r.condition));
  const cells: CellSummary[] = [];
  const paired: PairedDifference[] = [];
  const versus: PairedDifference[] = [];
  for (const model of options.models) {
    for (const condition of options.conditions) {
      const list = byCell.get(cellKey(model, condition));
      if (list?.length) cells.push(cellSummary(model, condition, list, options, stats));
    }
    paired.push(...pairedAgainst(byCell, model, options.baseline, options, stats));
    for (const reference of options.versus ?? []) versus.push(...pairedAgainst(byCell, model, reference, options, stats));
  }
  const families = [adjustFamily(paired, options.baseline, options.models.length), ...(options.versus ?? []).map((v) => adjustFamily(versus, v, options.models.length))];
  const curves = depthCurves(cells, byCell, stats);
  const depthFamilies = compareDepths(cells, byCell, stats, options.baseline);
  families.push(...depthFamilies.families);
  const modalities = compareModalities(sorted, { ...options, versus: options.versus ?? [] }, stats);

  return {
    experiment: options.experiment,
    baseline: options.baseline,
    bootstrap: { resamples: options.resamples, seed: options.seed, confidence: stats.settings.confidence },
    models: options.models,
    conditions: options.conditions,
    totals: {
      items: sorted.length,
      scored: sorted.filter(isScored).length,
      generationFailed: sorted.filter((r) => r.score.status === 'generation_failed').length,
      judgeFailed: sorted.filter((r) => r.score.status === 'judge_failed').length,
      empty: sorted.filter(isEmptyAnswer).length,
    },
    metric: metricInfo(runMetric(cells.map((c) => c.metric))),
    cells,
    paired,
    ...(options.versus?.length ? { versusConditions: options.versus, versus } : {}),
    ...(modalities.length ? { byModality: modalities } : {}),
    cluster: stats.settings.cluster,
    families,
    ...(depthFamilies.differences.length ? { depthComparisons: depthFamilies.differences } : {}),
    ...(curves.length ? { depthCurves: curves } : {}),
    ...judgeCheckOf(sorted, options),
  };
}

/** `judgeCheck` for a run with labels; nothing for one without (also how a label import refreshes a written summary). */
export function judgeCheckOf(records: readonly RunItemRecord[], options: Pick<SummaryOptions, 'baseline' | 'cluster' | 'resamples' | 'seed' | 'labels' | 'labelInclusion'>): { judgeCheck?: JudgeCheckSummary } {
  if (!options.labels?.length) return {};
  const check = judgeCheckSummary(
    checkJudge(records, options.labels, {
      baseline: options.baseline,
      ...(options.cluster !== undefined ? { cluster: options.cluster } : {}),
      resamples: options.resamples,
      seed: options.seed,
      inclusion: options.labelInclusion,
    }),
  );
  return check ? { judgeCheck: check } : {};
}

/** One model × condition: counts and costs over answers, the statistics over questions (samples reduced). */
function cellSummary(model: string, condition: string, list: RunItemRecord[], options: SummaryOptions, stats: RunStatistics): CellSummary {
  const first = list[0]!;
  const scored = list.filter(isScored);
  const observations = scored.map(stats.observe);
  const groupsOf = new Map<string, Record<string, string>>();
  for (const r of [...scored].sort((x, y) => (x.sample ?? 0) - (y.sample ?? 0))) if (!groupsOf.has(itemKeyOf(r))) groupsOf.set(itemKeyOf(r), r.groups);
  const retrieval = meansByName(list.map((r) => r.retrievalMetrics));
  const spanRetrieval = spanRetrievalOf(model, condition, list, stats);
  return {
    model,
    condition,
    strategy: first.strategy,
    ...(options.methods?.[first.strategy] ? { methodSpec: options.methods[first.strategy] } : {}),
    retriever: first.retriever,
    k: first.k,
    ...(first.contextTokens ? { contextTokens: first.contextTokens } : {}),
    ...contextOf(list),
    items: list.length,
    scored: scored.length,
    failed: {
      generation: list.filter((r) => r.score.status === 'generation_failed').length,
      judge: list.filter((r) => r.score.status === 'judge_failed').length,
    },
    empty: list.filter(isEmptyAnswer).length,
    rerankFallbacks: list.filter((r) => r.retrieved.some((chunk) => chunk.rerankFallback !== undefined)).length,
    metric: [...new Set(list.map((r) => r.score.metric))].sort().join('+'),
    score: conditionMean(observations, stats.settings, salts.cell(model, condition)),
    scoreRaw: meanOf(scored.map((r) => r.score.scoreRaw ?? r.score.score!)),
    // A question's groups are its first scored sample's.
    byGroup: groupBreakdown(observations, (itemKey) => groupsOf.get(itemKey) ?? {}, stats.settings, (key, value) => salts.group(model, condition, key, value)),
    retrieval: Object.keys(retrieval).length ? retrieval : null,
    ...(spanRetrieval ? { spanRetrieval } : {}),
    extra: meansByName(scored.map((r) => r.score.extra)),
    truncatedItems: list.filter((r) => r.truncated > 0).length,
    cost: meanCost(scored),
    method: methodFigures(list),
    ...(stats.settings.repeatedSamples && observations.length ? { sampling: { reducer: stats.settings.reducer, ...samplingOf(observations, stats.settings) } } : {}),
  };
}

/** Holm- and BH-adjusted p over the tested differences, set in place with the family's name (given its size). */
function adjustTested(differences: PairedDifference[], nameOf: (size: number) => string): { name: string; size: number } {
  const tested = differences.filter((d) => d.p !== undefined && d.p !== null);
  const name = nameOf(tested.length);
  const { holm, bh } = adjustedP(tested.map((d) => d.p!));
  tested.forEach((d, i) => Object.assign(d, { pHolm: holm[i]!, pBH: bh[i]!, family: name }));
  return { name, size: tested.length };
}

/** Every difference against `reference` in the run (all models, all conditions): the family a reader scans for "what beats closed-book". */
function adjustFamily(differences: PairedDifference[], reference: string, models: number): z.infer<typeof ComparisonFamilySchema> {
  const members = differences.filter((d) => d.baseline === reference);
  const { name, size } = adjustTested(members, (n) => `${n} differences vs ${reference} (${models > 1 ? `${models} models × ` : ''}conditions)`);
  return { name, reference, size };
}

/** A cell's depth on its series' axis: its k, or its context budget; null without either. */
const depthOf = (cell: CellSummary): { unit: 'k' | 'contextTokens'; depth: number } | null =>
  cell.k !== null ? { unit: 'k', depth: cell.k } : cell.contextTokens !== undefined ? { unit: 'contextTokens', depth: cell.contextTokens } : null;

/** The depth series of a run: per model × strategy × retriever × unit (k, context budget), its cells in depth order (one per depth). */
function depthSeries(cells: readonly CellSummary[]): { unit: 'k' | 'contextTokens'; depths: number[]; cells: CellSummary[] }[] {
  const series = new Map<string, { unit: 'k' | 'contextTokens'; cells: CellSummary[] }>();
  for (const cell of cells) {
    const at = depthOf(cell);
    if (!at) continue;
    const key = `${cell.model}\u0000${cell.strategy}\u0000${cell.retriever ?? ''}\u0000${at.unit}`;
    (series.get(key) ?? series.set(key, { unit: at.unit, cells: [] }).get(key)!).cells.push(cell);
  }
  return [...series.values()].flatMap(({ unit, cells: list }) => {
    const depths = [...new Set(list.map((c) => depthOf(c)!.depth))].sort((a, b) => a - b);
    // Two conditions at one depth (e.g. two rerankers over one retriever) are not one series.
    if (depths.length !== list.length) return [];
    return [{ unit, depths, cells: depths.map((d) => list.find((c) => depthOf(c)!.depth === d)!) }];
  });
}

/**
 * Per series measured at two depths or more: the depth curve on the questions scored at every depth,
 * and the same against mean context tokens, so that series of different chunkings share one axis.
 */
function depthCurves(cells: CellSummary[], byCell: Map<string, RunItemRecord[]>, stats: RunStatistics): DepthCurve[] {
  const out: DepthCurve[] = [];
  for (const { unit, depths, cells: ordered } of depthSeries(cells)) {
    if (depths.length < 2) continue;
    const first = ordered[0]!;
    const byDepth = ordered.map((c) => stats.observations(byCell.get(cellKey(c.model, c.condition))!));
    const salt = salts.depth(first.model, first.strategy, first.retriever) + (unit === 'contextTokens' ? '|tokens' : '');
    const curve = depthCurveOf(depths, byDepth, stats.settings, salt);
    if (!curve) continue;
    const tokens = ordered.map((c) => c.context?.tokens ?? 0);
    const rising = tokens[0]! > 0 && tokens.every((t, i) => i === 0 || t > tokens[i - 1]!);
    // The same salt: the same bootstrap draws, so the best depth and its P(best) agree on both axes.
    const onTokens = rising ? depthCurveOf(tokens, byDepth, stats.settings, salt) : null;
    out.push({
      model: first.model,
      strategy: first.strategy,
      retriever: first.retriever,
      conditions: ordered.map((c) => c.condition),
      depths: curve.depths,
      means: curve.means,
      n: curve.n,
      ...(stats.settings.cluster ? { clusters: curve.clusters } : {}),
      slope: curve.slope,
      bestK: curve.bestK,
      probabilityBest: curve.probabilityBest,
      deepestMinusBest: curve.deepestMinusBest,
      deepestBelowBest: curve.deepestBelowBest,
      unit,
      ...(first.corpus ? { corpus: first.corpus } : {}),
      ...(onTokens ? { againstTokens: { tokens, slope: onTokens.slope, bestTokens: onTokens.bestK, probabilityBest: onTokens.probabilityBest } } : {}),
    });
  }
  return out;
}

/** A cell as a point of its depth series (for the depth and chunking families); null without a depth. */
function depthPointOf(cell: CellSummary): DepthPoint | null {
  const at = depthOf(cell);
  if (!at) return null;
  return { model: cell.model, condition: cell.condition, strategy: cell.strategy, retriever: cell.retriever, ...at, ...(cell.corpus ? { corpus: cell.corpus } : {}), ...(cell.context ? { tokens: cell.context.tokens } : {}) };
}

/** The depth families as paired differences, each family's p adjusted by Holm and BH. */
function compareDepths(cells: CellSummary[], byCell: Map<string, RunItemRecord[]>, stats: RunStatistics, baseline: string): { differences: PairedDifference[]; families: z.infer<typeof ComparisonFamilySchema>[] } {
  const comparisons = depthFamilyComparisons(cells.flatMap((c) => depthPointOf(c) ?? []));
  const differences: PairedDifference[] = [];
  const families: z.infer<typeof ComparisonFamilySchema>[] = [];
  for (const kind of ['depth', 'chunking'] as const) {
    const members = comparisons
      .filter((c) => c.kind === kind)
      .map(({ model, condition, reference }) => pairedOf(byCell.get(cellKey(model, condition))!, byCell.get(cellKey(model, reference))!, model, condition, reference, baseline, stats));
    if (!members.length) continue;
    const { name, size } = adjustTested(members, (n) => depthFamilyName(kind, n));
    differences.push(...members);
    families.push({ name, reference: DEPTH_FAMILY_REFERENCE[kind], size, kind });
  }
  return { differences, families };
}

/** condition − reference on the questions both scored (n 0 and null figures when none are). */
function pairedOf(list: RunItemRecord[], against: RunItemRecord[], model: string, condition: string, reference: string, baseline: string, stats: RunStatistics): PairedDifference {
  const d = pairedDifference(stats.observations(list), stats.observations(against), stats.settings, salts.paired(model, condition, reference, baseline));
  return d.n === 0 ? { model, condition, baseline: reference, n: 0, meanDiff: null, ciLow: null, ciHigh: null, sharePositive: null } : { model, condition, baseline: reference, ...d };
}

/** Every condition of one model against a reference condition, on the questions both scored. */
function pairedAgainst(byCell: Map<string, RunItemRecord[]>, model: string, reference: string, options: SummaryOptions, stats: RunStatistics): PairedDifference[] {
  const against = byCell.get(cellKey(model, reference));
  if (!against) return [];
  return options.conditions.flatMap((condition) => {
    const list = byCell.get(cellKey(model, condition));
    return condition === reference || !list ? [] : [pairedOf(list, against, model, condition, reference, options.baseline, stats)];
  });
}
