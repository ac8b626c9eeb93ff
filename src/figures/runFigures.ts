import { CLAIM_METRICS, EVIDENCE_STATUSES, type ClaimMetric } from '../runFiles/diagnosis.js';
import type { CellSummary, RunSummary } from '../runFiles/summary.js';
import { FIRST_STAGE_PREFIX } from '../experiment/itemDetails.js';
import { FIGURE_CONFIG, lineFigureSpec, type ChartPoint, type ChartReference, type ChartSeries, type VegaLiteSpec } from './lineFigure.js';
import { SERIES_PALETTE, seriesColors, seriesLabel } from './palette.js';
import { meanAxisTitle, summaryMetric } from '../scoring/metrics.js';

const scoreTitle = (summary: RunSummary) => meanAxisTitle(summaryMetric(summary).id);

/** A cell's mean score as a point at `x`, its interval (the mean where there is none) as the bounds. */
const scorePoint = (cell: CellSummary, x: number, mark?: string): ChartPoint => {
  const { mean, ciLow, ciHigh } = cell.score;
  return { x, y: mean!, lo: ciLow ?? mean, hi: ciHigh ?? mean, ...(mark ? { mark } : {}) };
};

/** Adds a point to the series of `label` (created with `color` at its first point). */
function addPoint(series: Map<string, ChartSeries>, label: string, point: ChartPoint, color?: string): void {
  const entry = series.get(label) ?? { label, points: [], ...(color ? { color } : {}) };
  entry.points.push(point);
  series.set(label, entry);
}

const byX = (series: Map<string, ChartSeries>) => [...series.values()].map((s) => ({ ...s, points: s.points.sort((a, b) => a.x - b.x) }));

/** Score against k for one model, a line per strategy (and retriever), closed-book as reference lines, best k ringed. */
export function depthFigure(summary: RunSummary, model: string): VegaLiteSpec | null {
  const cells = summary.cells.filter((c) => c.model === model && c.score.mean !== null);
  const series = new Map<string, ChartSeries>();
  const references: ChartReference[] = [];
  const colors = seriesColors(summary);
  for (const cell of cells) {
    // Budget conditions (`rag@2000tok`) have no k: they are drawn against context tokens (contextFigure).
    if (cell.contextTokens !== undefined) continue;
    if (cell.k === null) {
      const { y, lo, hi } = scorePoint(cell, 0);
      references.push({ label: cell.condition, y, lo, hi, color: colors.get(cell.condition)! });
      continue;
    }
    const label = seriesLabel(cell);
    const curve = summary.depthCurves?.find((c) => c.model === model && c.bestK === cell.k && c.conditions.includes(cell.condition));
    const mark = curve ? `best k, P(best) ${curve.probabilityBest[curve.depths.indexOf(cell.k)]!.toFixed(2)}` : undefined;
    addPoint(series, label, scorePoint(cell, cell.k, mark), colors.get(label)!);
  }
  if (series.size === 0) return null;
  return lineFigureSpec({ xLabel: 'retrieval depth k', yLabel: scoreTitle(summary), series: [...series.values()], references, xScale: 'ordinal' });
}

/**
 * Score against mean context tokens (log axis), a line per chunking, so that k of different chunk sizes
 * and context budgets share one axis. Null with one line only (the score-vs-k chart says the same).
 */
export function contextFigure(summary: RunSummary, model: string): VegaLiteSpec | null {
  const cells = summary.cells.filter((c) => c.model === model && c.score.mean !== null);
  const placed = cells.filter((c) => c.context && c.context.tokens > 0 && c.corpus);
  if (placed.length === 0) return null;
  // A line per chunking; the strategy and the kind of depth are named only where the run has several.
  const strategies = new Set(placed.map((c) => c.strategy)).size > 1;
  const units = new Set(placed.map((c) => (c.contextTokens !== undefined ? 'budget' : 'k'))).size > 1;
  const labelOf = (c: CellSummary) => [c.corpus!, ...(strategies ? [c.strategy] : []), ...(units ? [c.contextTokens !== undefined ? 'budgets' : 'k'] : [])].join(' · ');
  const colors = seriesColors(summary);
  const references: ChartReference[] = cells
    .filter((c) => c.k === null && c.contextTokens === undefined)
    .map((c) => {
      const { y, lo, hi } = scorePoint(c, 0);
      return { label: c.condition, y, lo, hi, color: colors.get(c.condition)! };
    });
  // The chunkings' lines take the palette's colours the reference lines do not.
  const free = SERIES_PALETTE.filter((color) => !references.some((r) => r.color === color));
  const series = new Map<string, ChartSeries>();
  for (const cell of placed) {
    const curve = summary.depthCurves?.find((c) => c.model === model && c.againstTokens && c.conditions.includes(cell.condition));
    const at = curve ? curve.conditions.indexOf(cell.condition) : -1;
    const best = curve && curve.depths[at] === curve.bestK;
    addPoint(series, labelOf(cell), scorePoint(cell, cell.context!.tokens, best ? `best, P(best) ${curve.probabilityBest[at]!.toFixed(2)}` : undefined), free[series.size % free.length]!);
  }
  if (series.size < 2) return null;
  return lineFigureSpec({
    xLabel: 'context tokens per answer, mean (log scale; cjk-estimate)',
    yLabel: scoreTitle(summary),
    series: byX(series),
    references,
    xScale: 'log',
  });
}

/** Score against mean cost per answer (the price where every condition has one, else tokens), log axis. */
export function costFigure(summary: RunSummary, model: string): VegaLiteSpec | null {
  const cells = summary.cells.filter((c) => c.model === model && c.score.mean !== null && c.cost);
  if (cells.length === 0) return null;
  const byPrice = cells.every((c) => c.cost!.price !== null && c.cost!.price > 0);
  const costOf = (c: CellSummary) => (byPrice ? c.cost!.price! : Math.max(1, c.cost!.promptTokens + c.cost!.completionTokens));
  const series = new Map<string, ChartSeries>();
  const colors = seriesColors(summary);
  for (const cell of cells) addPoint(series, seriesLabel(cell), scorePoint(cell, costOf(cell)), colors.get(seriesLabel(cell))!);
  const estimated = cells.some((c) => c.cost!.estimatedTokens);
  return lineFigureSpec({
    xLabel: byPrice ? 'price per answer (log scale)' : `tokens per answer, prompt + completion (log scale${estimated ? '; estimated where the endpoint reported none' : ''})`,
    yLabel: scoreTitle(summary),
    series: byX(series),
    xScale: 'log',
    errorBars: true,
  });
}

/**
 * Retrieval recall@k before and after reranking for one model: per reranked retriever one line
 * for the first-stage list and one for the reranked list, both cut at k. Null without reranking.
 */
export function rerankRecallFigure(summary: RunSummary, model: string, metric = 'recall'): VegaLiteSpec | null {
  const cells = summary.cells.filter((c) => c.model === model && c.k !== null && c.retrieval?.[metric] !== undefined);
  if (!cells.some((c) => c.retrieval![`${FIRST_STAGE_PREFIX}${metric}`] !== undefined)) return null;
  const series = new Map<string, ChartSeries>();
  const add = (label: string, x: number, y: number) => {
    if (!series.get(label)?.points.some((p) => p.x === x)) addPoint(series, label, { x, y });
  };
  for (const cell of cells) {
    const name = cell.retriever ?? 'retriever';
    const before = cell.retrieval![`${FIRST_STAGE_PREFIX}${metric}`];
    if (before === undefined) {
      add(name, cell.k!, cell.retrieval![metric]!);
      continue;
    }
    add(`${name}: first stage`, cell.k!, before);
    add(`${name}: reranked`, cell.k!, cell.retrieval![metric]!);
  }
  return lineFigureSpec({ title: `${metric}@k before and after reranking — ${model}`, xLabel: 'retrieval depth k', yLabel: `${metric}@k`, series: [...series.values()], yDomain: [0, 1] });
}

/** What the report calls each claim metric (RAGChecker's names). */
export const CLAIM_METRIC_TITLES: Record<ClaimMetric, string> = {
  precision: 'precision',
  recall: 'recall',
  f1: 'F1',
  claimRecall: 'claim recall',
  contextPrecision: 'context precision',
  contextUtilization: 'context utilization',
  noiseSensitivityRelevant: 'noise sensitivity (relevant)',
  noiseSensitivityIrrelevant: 'noise sensitivity (irrelevant)',
  hallucination: 'hallucination',
  selfKnowledge: 'self-knowledge',
  faithfulness: 'faithfulness',
};

/** One figure per claim metric: a line per method (and retriever) against k, intervals as error bars. */
export function claimMetricFigures(summary: RunSummary, cells: CellSummary[], model: string): { metric: ClaimMetric; spec: VegaLiteSpec }[] {
  const withK = cells.filter((c) => c.model === model && c.k !== null && c.diagnostics);
  const colors = seriesColors(summary);
  const figures: { metric: ClaimMetric; spec: VegaLiteSpec }[] = [];
  for (const metric of CLAIM_METRICS) {
    const series = new Map<string, ChartSeries>();
    for (const cell of withK) {
      const m = cell.diagnostics!.claims[metric];
      if (!m || m.mean === null) continue;
      addPoint(series, seriesLabel(cell), { x: cell.k!, y: m.mean, lo: m.ciLow, hi: m.ciHigh }, colors.get(seriesLabel(cell)));
    }
    if (series.size) {
      figures.push({ metric, spec: lineFigureSpec({ title: CLAIM_METRIC_TITLES[metric], xLabel: 'k', yLabel: '×100 (95% CI)', series: [...series.values()], xScale: 'ordinal', errorBars: true, height: 220 }) });
    }
  }
  return figures;
}

/** Evidence statuses and items without gold, in bar order, with their colours. */
export const EVIDENCE_SEGMENTS = [
  { key: 'inPrompt', label: 'gold in the final prompt', color: '#2c7fb8' },
  { key: 'retrievedNotInPrompt', label: 'gold retrieved, not in the prompt', color: '#fdae61' },
  { key: 'notRetrieved', label: 'gold not retrieved', color: '#d7191c' },
  { key: 'noGold', label: 'no gold evidence', color: '#bbbbbb' },
] as const;

type Segment = (typeof EVIDENCE_SEGMENTS)[number]['key'];

function segmentCounts(cell: CellSummary, outcome: 'helped' | 'hurt'): Record<Segment, number> {
  const d = cell.diagnostics!.decomposition!;
  const by = d.byEvidence?.[outcome];
  const counted = by ? EVIDENCE_STATUSES.reduce((n, s) => n + by[s]!.n, 0) : 0;
  return {
    inPrompt: by?.inPrompt?.n ?? 0,
    retrievedNotInPrompt: by?.retrievedNotInPrompt?.n ?? 0,
    notRetrieved: by?.notRetrieved?.n ?? 0,
    noGold: d[outcome].n - counted,
  };
}

/** Per condition a diverging bar: hurt items left, helped right, split by what became of their gold evidence. */
export function helpHurtFigure(cells: CellSummary[]): VegaLiteSpec | null {
  const rows = cells.filter((c) => c.diagnostics?.decomposition);
  if (!rows.length) return null;
  const values = rows.flatMap((cell) =>
    (['hurt', 'helped'] as const).flatMap((outcome) => {
      const counts = segmentCounts(cell, outcome);
      const d = cell.diagnostics!.decomposition!;
      return EVIDENCE_SEGMENTS.filter((s) => counts[s.key] > 0).map((s, order) => ({
        condition: cell.condition,
        outcome,
        evidence: s.label,
        order,
        items: outcome === 'hurt' ? -counts[s.key] : counts[s.key],
        count: counts[s.key],
        total: d[outcome].n,
        contribution: d[outcome].contribution,
      }));
    }),
  );
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values },
    width: 'container',
    autosize: { type: 'fit-x', contains: 'padding' },
    height: { step: 24 },
    params: [{ name: 'hidden', select: { type: 'point', fields: ['evidence'], toggle: 'true' }, bind: 'legend' }],
    mark: 'bar',
    encoding: {
      y: { field: 'condition', type: 'nominal', title: null, sort: rows.map((c) => c.condition), axis: { labelLimit: 260 } },
      x: { field: 'items', type: 'quantitative', title: '← hurt · items · helped →', stack: 'zero' },
      color: {
        field: 'evidence',
        type: 'nominal',
        title: null,
        scale: { domain: EVIDENCE_SEGMENTS.map((s) => s.label), range: EVIDENCE_SEGMENTS.map((s) => s.color) },
        legend: { orient: 'bottom', direction: 'horizontal' },
      },
      order: { field: 'order' },
      opacity: { condition: { param: 'hidden', empty: false, value: 0 }, value: 1 },
      tooltip: [
        { field: 'condition' },
        { field: 'outcome' },
        { field: 'evidence' },
        { field: 'count', title: 'items' },
        { field: 'total', title: 'items (outcome)' },
        { field: 'contribution', title: 'contribution to Δ', format: '+.1f' },
      ],
    },
    config: FIGURE_CONFIG,
  };
}

/** A file-name-safe form of a model's name (`org/model:7b` → `org-model-7b`). */
const fileSafe = (name: string) => name.replace(/[^\p{L}\p{N}._-]+/gu, '-').replace(/^-+|-+$/g, '') || 'model';

/**
 * Per depth curve of one model, the bootstrap probability that each depth k is the best (the share
 * of resamples in which it has the highest mean) against k; the best k is ringed. Null without depth curves.
 */
export function probabilityBestFigure(summary: RunSummary, model: string): VegaLiteSpec | null {
  const curves = (summary.depthCurves ?? []).filter((c) => c.model === model);
  if (!curves.length) return null;
  const colors = seriesColors(summary);
  const series = curves.map((c): ChartSeries => {
    const label = seriesLabel({ condition: c.conditions[0]!, k: c.depths[0]! });
    const points = c.depths.map((k, i) => ({ x: k, y: c.probabilityBest[i]!, ...(k === c.bestK ? { mark: 'best k' } : {}) }));
    return { label, points, ...(colors.get(label) ? { color: colors.get(label)! } : {}) };
  });
  return lineFigureSpec({ xLabel: 'retrieval depth k', yLabel: 'P(best k), bootstrap', series, xScale: 'ordinal', yDomain: [0, 1], height: 220 });
}

/** A saved figure: its file name (without `.vl.json`), its spec, its model and what it shows (a caption's first sentence). */
export interface RunFigure {
  name: string;
  spec: VegaLiteSpec;
  model: string;
  subject: string;
}

/**
 * Every figure of a run by file name (without `.vl.json`): what a run saves beside its report
 * (`figures/<name>.vl.json`) so a figure can be restyled and re-rendered (`hisrag figures`).
 */
export function runFigureSpecs(summary: RunSummary): RunFigure[] {
  const out: RunFigure[] = [];
  for (const model of summary.models) {
    const tag = summary.models.length > 1 ? `-${fileSafe(model)}` : '';
    const add = (name: string, spec: VegaLiteSpec | null, subject: string) => spec && out.push({ name: `${name}${tag}`, spec, model, subject });
    add('score-vs-k', depthFigure(summary, model), 'Mean score against retrieval depth k, conditions without retrieval as dashed reference lines; the ringed point is the best k of the depth curve');
    add('score-vs-context-tokens', contextFigure(summary, model), 'Mean score against mean context tokens, a line per chunking (the corpus a retriever reads); k and token budgets as separate lines');
    add('p-best', probabilityBestFigure(summary, model), 'Probability that each depth k is the best (share of bootstrap resamples in which it has the highest mean), per depth curve');
    add('score-vs-cost', costFigure(summary, model), 'Mean score against the cost per answer');
    add('recall-before-after-rerank', rerankRecallFigure(summary, model), 'Retrieval recall@k before and after reranking');
    add('help-hurt', helpHurtFigure(summary.cells.filter((c) => c.model === model)), 'Items retrieval helped and hurt, by what became of their gold evidence');
    for (const { metric, spec } of claimMetricFigures(summary, summary.cells, model)) add(`claims-${metric}`, spec, `Claim metric: ${CLAIM_METRIC_TITLES[metric]} against k`);
  }
  return out;
}
