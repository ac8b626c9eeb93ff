import { z } from 'zod';
import { summaryMetric } from '../scoring/metrics.js';
import type { CellDiagnostics, ClaimMetric, MetricMean } from '../runFiles/diagnosis.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import type { CellSummary, RunSummary } from '../runFiles/summary.js';
import { isScored, itemKeyOf as itemKey, runStatistics, type RunStatistics } from './observations.js';
import { conditionMean, type MeanEstimate } from '../statistics/run.js';
import { groupBy } from '../diagnostics/groupBy.js';
import type { StoredRunManifest } from '../runFiles/manifest.js';

/** Gold positions of `oracle+noise`, in the order the position chart puts them (x = 1, 2, 3, 4). */
export const GOLD_POSITIONS = ['first', 'middle', 'last', 'random'] as const;

/** The claim metrics shown beside the curves (RAGChecker's generator metrics for noise, and claim recall). */
export const NOISE_DIAGNOSTIC_METRICS = ['noiseSensitivityRelevant', 'noiseSensitivityIrrelevant', 'faithfulness', 'claimRecall'] as const satisfies readonly ClaimMetric[];

export interface NoiseStudyOptions {
  /** Bootstrap resamples (default: the summary's). */
  resamples?: number;
  /** Bootstrap seed (default: the summary's). */
  seed?: number;
}

/** Mean score of a group of answers with its 95% CI (the run's estimator: clusters, samples). */
export type NoiseStudyPoint = Pick<MeanEstimate, 'n' | 'mean' | 'ciLow' | 'ciHigh'> & {
  x: number;
  /** The conditions whose answers the point holds (one, or several depths that reach the same noise rate). */
  conditions: string[];
};

/**
 * What the studies read of a retriever's description (`manifest.components.retrievers`, written by
 * `describe()`): a field absent or of another shape reads as the default (random noise and position).
 */
const DescribedSchema = z.looseObject({
  name: z.string().catch(''),
  noise: z.string().catch('random'),
  goldPosition: z.string().catch('random'),
  base: z.object({ name: z.string() }).optional().catch(undefined),
});
type Described = z.infer<typeof DescribedSchema>;
const ComponentsSchema = z.looseObject({ retrievers: z.record(z.string(), DescribedSchema).catch({}) }).catch({ retrievers: {} });

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const meanOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * oracle+noise gives gold chunks score 1 and distractors 0; a reranked list keeps the oracle's
 * score as `firstStage.score`.
 */
function isGoldChunk(chunk: RunItemRecord['retrieved'][number]): boolean {
  return (chunk.firstStage?.score ?? chunk.score) === 1;
}

/** What an oracle+noise answer's prompt held: the gold it got, its noise rate (null without passages), where the first gold sat. */
function noiseRecord(record: RunItemRecord) {
  const gold = new Set(record.retrieved.filter(isGoldChunk).map((c) => c.id));
  const goldRanks = record.contextIds.flatMap((id, i) => (gold.has(id) ? [i + 1] : []));
  const passages = record.contextIds.length;
  return {
    record,
    goldRetrieved: gold.size,
    passages,
    rate: passages ? round3(1 - goldRanks.length / passages) : null,
    firstGoldRank: goldRanks[0] ?? null,
  };
}

/**
 * Mean with CI of a group of answers, through the run's estimator (clusters, samples) as the
 * conditions table computes it. A group that is exactly one cell's scored answers gets that cell's
 * seed (`model|condition`), so its CI is the conditions table's; any other group is seeded by
 * `model|<its conditions>|<tag>`, a question of each condition counted on its own.
 */
function pointOf(records: RunItemRecord[], x: number, model: string, tag: string, scoredPerCondition: Map<string, number>, stats: RunStatistics): NoiseStudyPoint {
  const conditions = [...new Set(records.map((r) => r.condition))].sort();
  if (records.length === 0) return { x, n: 0, mean: null, ciLow: null, ciHigh: null, conditions };
  const wholeCell = conditions.length === 1 && scoredPerCondition.get(conditions[0]!) === records.length;
  const salt = wholeCell ? `${model}|${conditions[0]}` : `${model}|${conditions.join(',')}|${tag}`;
  const observations = records.map((r) => {
    const o = stats.observe(r);
    return wholeCell ? o : { ...o, itemKey: `${r.condition}\u0000${o.itemKey}` };
  });
  const s = conditionMean(observations, stats.settings, salt);
  return { x, n: s.n, mean: s.mean, ciLow: s.ciLow, ciHigh: s.ciHigh, conditions };
}

const describedName = (d: Described | undefined) => d?.name ?? '';
const noiseKind = (d: Described) => `${d.noise}${d.noise === 'hard' && d.base ? ` (${d.base.name})` : ''}`;
const positionOf = (d: Described) => d.goldPosition;
const positionX = (position: string) => {
  const i = (GOLD_POSITIONS as readonly string[]).indexOf(position);
  return i < 0 ? GOLD_POSITIONS.length + 1 : i + 1;
};

/**
 * The noise studies of a run that has `oracle+noise` conditions, per model: RGB's curve (score against
 * noise rate), Lost in the Middle's (score against the gold's position at each k), real retrievers for
 * comparison, the closed-book reference and the conditions' claim diagnostics. `null` without any
 * oracle+noise condition. Retrievers are told apart by `manifest.components.retrievers` (each label's
 * `describe()`: name, noise, goldPosition).
 *
 * - Noise rate, per answer: the share of distractors among the passages its prompt got (`contextIds`;
 *   a passage of an oracle+noise list with score 1 is gold): 1 − gold/passages. It is 1 − gold/k
 *   whenever the prompt holds k passages; when it holds fewer (a document shorter than k, the
 *   context budget), this is what the model saw, as RGB defines it. Answers are grouped by the rate
 *   rounded to 3 decimals, across depths.
 * - Items without gold evidence (unanswerable) are left out of the curves and of the closed-book
 *   reference (`excludedNoGold`): the control gives them distractors only at every k, so they would
 *   pile up at noise rate 1 as a different population (refusals), not the cost of distractors.
 * - Real retrievers: per depth, at their mean 1 − precision@k (`final.precision` where the prompt got
 *   fewer passages than were retrieved) over the answers to items with gold evidence, which the
 *   record's retrieval metrics give. Per-answer rates of a real retriever scatter over many small
 *   groups, and the mean place per k is what compares with the controls: at the same noise rate, a
 *   real retriever below the oracle curve loses to missing evidence, not to distraction. On page
 *   evidence, precision counts distinct pages, so this is approximate when pages span several chunks.
 */
export function noiseStudy(records: RunItemRecord[], summary: RunSummary, manifest: Pick<StoredRunManifest, 'components'>, options: NoiseStudyOptions = {}) {
  const bootstrap = { resamples: options.resamples ?? summary.bootstrap.resamples, seed: options.seed ?? summary.bootstrap.seed };
  // The summary's own settings: its cluster field (none in runs from before clustering) and reducer.
  const reducer = summary.cells.find((c) => c.sampling)?.sampling?.reducer as RunStatistics['settings']['reducer'] | undefined;
  const stats = runStatistics(records, { ...bootstrap, cluster: summary.cluster ?? 'none', ...(reducer ? { reducer } : {}) });
  const described = ComponentsSchema.parse(manifest.components ?? {}).retrievers;
  if (!records.some((r) => r.retriever !== null && describedName(described[r.retriever]) === 'oracle+noise')) return null;

  const models = summary.models.flatMap((model) => modelNoiseStudy(model, records, summary, stats, described) ?? []);
  return models.length ? { bootstrap, metric: summaryMetric(summary).id, models } : null;
}

export type NoiseStudy = NonNullable<ReturnType<typeof noiseStudy>>;

/** One model's noise studies; null without oracle+noise answers. */
function modelNoiseStudy(model: string, records: RunItemRecord[], summary: RunSummary, stats: RunStatistics, described: Record<string, Described>) {
  const isOracle = (label: string | null) => label !== null && describedName(described[label]) === 'oracle+noise';
  const isReal = (label: string | null) => label !== null && Object.hasOwn(described, label) && !describedName(described[label]).startsWith('oracle');
  const scored = records.filter((r) => r.model === model && isScored(r));
  const scoredPerCondition = new Map([...groupBy(scored, (r) => r.condition)].map(([c, list]) => [c, list.length]));
  const point = (list: RunItemRecord[], x: number, tag: string) => pointOf(list, x, model, tag, scoredPerCondition, stats);

  const oracle = scored.filter((r) => isOracle(r.retriever)).map(noiseRecord);
  if (oracle.length === 0) return null;
  const withGold = oracle.filter((n) => n.goldRetrieved > 0 && n.rate !== null);
  const goldItems = new Set(withGold.map((n) => itemKey(n.record)));
  const strategies = new Set(withGold.map((n) => n.record.strategy));
  const withStrategy = (label: string, strategy: string) => (strategies.size > 1 ? `${label}/${strategy}` : label);

  // RGB: one series per oracle+noise retriever (and strategy), x = noise rate.
  const byNoiseRate = [...groupBy(withGold, (n) => `${n.record.retriever}\u0000${n.record.strategy}`)].map(([key, list]) => {
    const [retriever, strategy] = key.split('\u0000') as [string, string];
    const points = [...groupBy(list, (n) => n.rate!)]
      .sort(([a], [b]) => a - b)
      .map(([rate, group]) => point(group.map((n) => n.record), rate, `noise rate ${rate}`));
    const d = described[retriever]!;
    return { label: withStrategy(retriever, strategy), retriever, strategy, noise: noiseKind(d), goldPosition: positionOf(d), points };
  });

  // Lost in the Middle: at each k, one point per gold position (x: its place in GOLD_POSITIONS), same
  // noise kind and strategy. k = 1 is left out: the list is the gold alone, every position the same
  // prompt. A reranked oracle+noise list is left out too: the reranker, not the control, placed the gold.
  const positioned = withGold.filter((n) => n.record.k !== null && n.record.k > 1 && described[n.record.retriever!]!.rerank === undefined);
  const families = groupBy(positioned, (n) => `${noiseKind(described[n.record.retriever!]!)}\u0000${n.record.strategy}\u0000${n.record.k}`);
  const kinds = new Set(positioned.map((n) => noiseKind(described[n.record.retriever!]!)));
  const byGoldPosition = [...families].flatMap(([key, list]) => {
    const [noise, strategy, kText] = key.split('\u0000') as [string, string, string];
    const k = Number(kText);
    const points = [...groupBy(list, (n) => n.record.retriever!)].map(([retriever, group]) => {
      const position = positionOf(described[retriever]!);
      const ranks = group.flatMap((n) => (n.firstGoldRank === null ? [] : [n.firstGoldRank]));
      // meanGoldRank: the mean one-based rank of the first gold passage in the prompt, the actual position.
      return { ...point(group.map((n) => n.record), positionX(position), 'items with gold evidence'), position, retriever, meanGoldRank: ranks.length ? meanOf(ranks) : null };
    });
    // Two retrievers of one noise kind at the same position would share an x: keep them apart by label.
    const clash = new Set(points.map((p) => p.x)).size < points.length;
    const base = `k = ${k}${kinds.size > 1 ? `, ${noise} noise` : ''}`;
    if (clash) return points.map((p) => ({ label: withStrategy(`${base}, ${p.retriever}`, strategy), k, noise, strategy, points: [p] }));
    return [{ label: withStrategy(base, strategy), k, noise, strategy, points: points.sort((a, b) => a.x - b.x) }];
  });
  byGoldPosition.sort((a, b) => a.k - b.k || a.label.localeCompare(b.label));

  // Real retrievers at their mean noise rate per depth.
  const real = scored.filter((r) => isReal(r.retriever) && r.k !== null);
  const realistic = [...groupBy(real, (r) => `${r.retriever}\u0000${r.strategy}`)].flatMap(([key, list]) => {
    const [retriever, strategy] = key.split('\u0000') as [string, string];
    const points = [...groupBy(list, (r) => r.k!)]
      .sort(([a], [b]) => a - b)
      .flatMap(([k, atK]) => {
        const measured = atK.filter((r) => typeof (r.retrievalMetrics?.['final.precision'] ?? r.retrievalMetrics?.precision) === 'number');
        if (measured.length === 0) return [];
        const x = round3(meanOf(measured.map((r) => 1 - (r.retrievalMetrics!['final.precision'] ?? r.retrievalMetrics!.precision!))));
        return [{ ...point(measured, x, 'items with gold evidence'), k }];
      });
    return points.length ? [{ label: `${withStrategy(retriever, strategy)} (real retrieval)`, retriever, strategy, points }] : [];
  });

  const cells = summary.cells.filter((c) => c.model === model);
  // The claim-diagnostics table: each noise condition's claim metrics (×100, with CIs) at its mean noise rate.
  const diagnostics = cells.flatMap((cell) => {
    const diag = (cell as CellSummary & { diagnostics?: CellDiagnostics }).diagnostics;
    if (!diag || !(isOracle(cell.retriever) || isReal(cell.retriever))) return [];
    const metrics: Partial<Record<(typeof NOISE_DIAGNOSTIC_METRICS)[number], MetricMean>> = {};
    for (const m of NOISE_DIAGNOSTIC_METRICS) if (diag.claims?.[m]) metrics[m] = diag.claims[m];
    if (Object.keys(metrics).length === 0) return [];
    const oracleCell = isOracle(cell.retriever);
    const d = described[cell.retriever!]!;
    const rates = withGold.filter((n) => n.record.condition === cell.condition).map((n) => n.rate!);
    const realPoint = realistic.flatMap((s) => s.points).find((p) => p.conditions.length === 1 && p.conditions[0] === cell.condition);
    const noiseRate = oracleCell ? (rates.length ? round3(meanOf(rates)) : null) : (realPoint?.x ?? null);
    const [noise, goldPosition] = oracleCell ? [noiseKind(d), positionOf(d)] : [null, null];
    return [{ condition: cell.condition, retriever: cell.retriever!, k: cell.k, noise, goldPosition, noiseRate, diagnosed: diag.diagnosed, metrics }];
  });

  const noGold = oracle.filter((n) => n.goldRetrieved === 0);
  return {
    model,
    byNoiseRate,
    byGoldPosition,
    realistic,
    closedBook: referenceOf(cells, summary.baseline, scored, goldItems, point),
    diagnostics,
    // Scored oracle+noise answers left out (items without gold evidence: the control gives them distractors only), and their items.
    excludedNoGold: noGold.length,
    excludedNoGoldItems: new Set(noGold.map((n) => itemKey(n.record))).size,
    // Scored oracle+noise answers whose prompt got fewer passages than k (short documents, the context budget).
    shortPrompts: oracle.filter((n) => n.record.k !== null && n.passages < n.record.k).length,
  };
}

/**
 * The closed-book reference: the baseline when it retrieves nothing, else the first `closed-book`
 * condition; over the items the curves hold (those with gold evidence), which is the conditions
 * table's cell, CI included, when every item has gold evidence.
 */
function referenceOf(
  cells: CellSummary[],
  baseline: string,
  scored: RunItemRecord[],
  goldItems: Set<string>,
  point: (list: RunItemRecord[], x: number, tag: string) => NoiseStudyPoint,
) {
  const cell = cells.find((c) => c.condition === baseline && c.k === null) ?? cells.find((c) => c.k === null && c.strategy === 'closed-book');
  if (!cell) return null;
  const all = scored.filter((r) => r.condition === cell.condition);
  const kept = all.filter((r) => goldItems.has(itemKey(r)));
  if (kept.length === 0) return null;
  const restricted = kept.length < all.length;
  const { n, mean, ciLow, ciHigh } = point(kept, 0, 'items with gold evidence');
  const label = restricted ? `${cell.condition} (items with gold evidence)` : cell.condition;
  return { label, condition: cell.condition, n, mean, ciLow, ciHigh, restricted };
}
