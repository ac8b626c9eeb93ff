import { CLAIM_METRICS, EVIDENCE_STATUSES, type ClaimMetric } from '../runFiles/diagnosis.js';
import { contextUnitOf, type CellSummary, type DepthCurve, type RunSummary } from '../runFiles/summary.js';
import { FIRST_STAGE_PREFIX } from '../experiment/itemDetails.js';
import { FIGURE_CONFIG, lineFigureSpec, panelledFigureSpec, type ChartPoint, type ChartReference, type ChartSeries, type VegaLiteSpec } from './lineFigure.js';
import { cellFactors, DEPTH_AXIS_TITLES, DEPTH_KIND_NAMES, depthKindOf, factorPanels, NO_FACTOR, type FactorPoint } from './figureModel.js';
import { meanAxisTitle, summaryMetric } from '../scoring/metrics.js';
import { seriesLabel } from './palette.js';

const scoreTitle = (summary: RunSummary) => meanAxisTitle(summaryMetric(summary).id);

/** A cell's mean score as a point at `x`, its interval (the mean where there is none) as the bounds. */
const scorePoint = (cell: CellSummary, x: number, mark?: string): ChartPoint => {
  const { mean, ciLow, ciHigh } = cell.score;
  return { x, y: mean!, lo: ciLow ?? mean, hi: ciHigh ?? mean, ...(mark ? { mark } : {}) };
};

/** A cell's depth: its k, or its context budget in tokens. */
const depthOf = (cell: CellSummary) => cell.contextTokens ?? cell.k;

/** Conditions without retrieval (closed-book) as dashed reference lines, named by their condition. */
const closedBookReferences = (cells: CellSummary[]): ChartReference[] =>
  cells.filter((c) => depthKindOf(c) === null && c.score.mean !== null).map((c) => {
    const { y, lo, hi } = scorePoint(c, 0);
    return { label: c.condition, y, lo, hi };
  });

/** The depth curve a cell belongs to, and its place on it. */
function curveOf(summary: RunSummary, cell: CellSummary): { curve: DepthCurve; at: number } | null {
  const curve = summary.depthCurves?.find((c) => c.model === cell.model && c.conditions.includes(cell.condition));
  return curve ? { curve, at: curve.conditions.indexOf(cell.condition) } : null;
}

/** Score against depth for one model: a panel per depth kind (k, context budget), a line per condition less its depth, closed-book as reference lines, best depth ringed. */
export function depthFigure(summary: RunSummary, model: string): VegaLiteSpec | null {
  const cells = summary.cells.filter((c) => c.model === model && c.score.mean !== null);
  const points = cells.flatMap((cell): FactorPoint[] => {
    const depth = depthOf(cell);
    if (depth === null) return [];
    const on = curveOf(summary, cell);
    const best = on && on.curve.bestK === depth ? `best ${on.curve.unit === 'contextTokens' ? 'budget' : 'k'}, P(best) ${on.curve.probabilityBest[on.at]!.toFixed(2)}` : undefined;
    return [{ factors: cellFactors(cell), name: seriesLabel(cell), point: scorePoint(cell, depth, best) }];
  });
  if (points.length === 0) return null;
  const panels = factorPanels(points, { xLabel: (kind) => DEPTH_AXIS_TITLES[kind ?? 'k'], references: closedBookReferences(cells) });
  return panelledFigureSpec({ yLabel: scoreTitle(summary), panels, xScale: 'ordinal' });
}

/**
 * Score against mean context tokens (log axis), a line per condition less its depth (so chunkings of
 * different chunk sizes share one axis), a panel per depth kind. Null with one line only (the
 * score-vs-depth chart says the same).
 */
export function contextFigure(summary: RunSummary, model: string): VegaLiteSpec | null {
  const cells = summary.cells.filter((c) => c.model === model && c.score.mean !== null);
  const placed = cells.filter((c) => c.context && c.context.tokens > 0 && depthKindOf(c) !== null);
  const points = placed.map((cell): FactorPoint => {
    const on = curveOf(summary, cell);
    const tokens = on?.curve.againstTokens;
    const best = tokens && on.curve.depths[on.at] === on.curve.bestK ? `best, P(best) ${tokens.probabilityBest[on.at]!.toFixed(2)}` : undefined;
    return { factors: cellFactors(cell), name: seriesLabel(cell), point: scorePoint(cell, cell.context!.tokens, best) };
  });
  const unit = contextUnitOf(summary, model);
  const panels = factorPanels(points, { xLabel: (kind) => `context ${unit} (log), ${DEPTH_KIND_NAMES[kind ?? 'k']}`, references: closedBookReferences(cells) });
  if (panels.reduce((n, p) => n + p.series.length, 0) < 2) return null;
  return panelledFigureSpec({ yLabel: scoreTitle(summary), panels, xScale: 'log' });
}

/** Score against mean cost per answer (the price where every condition has one, else tokens), log axis, a panel per depth kind. */
export function costFigure(summary: RunSummary, model: string): VegaLiteSpec | null {
  const cells = summary.cells.filter((c) => c.model === model && c.score.mean !== null && c.cost);
  if (cells.length === 0) return null;
  const byPrice = cells.every((c) => c.cost!.price !== null && c.cost!.price > 0);
  const costOf = (c: CellSummary) => (byPrice ? c.cost!.price! : Math.max(1, c.cost!.promptTokens + c.cost!.completionTokens));
  const estimated = cells.some((c) => c.cost!.estimatedTokens);
  // Short axis titles: a panel is as wide as its title; what the tokens count is in the figure's caption.
  const what = byPrice ? 'price per answer (log' : `tokens per answer${estimated ? ', estimated' : ''} (log`;
  const points = cells.map((cell): FactorPoint => ({ factors: cellFactors(cell), name: seriesLabel(cell), point: scorePoint(cell, costOf(cell)) }));
  const panels = factorPanels(points, { xLabel: (kind) => `${what})${kind ? `, ${DEPTH_KIND_NAMES[kind]}` : ''}` });
  return panelledFigureSpec({ yLabel: scoreTitle(summary), panels, xScale: 'log', errorBars: true });
}

/**
 * Retrieval recall@k before and after reranking for one model: per reranked retriever one line
 * for the first-stage list and one for the reranked list, both cut at k. Null without reranking.
 * Recall is the retriever's, whatever the strategy: a line per retriever (its chunking) and stage.
 */
export function rerankRecallFigure(summary: RunSummary, model: string, metric = 'recall'): VegaLiteSpec | null {
  const cells = summary.cells.filter((c) => c.model === model && depthKindOf(c) === 'k' && c.retrieval?.[metric] !== undefined);
  if (!cells.some((c) => c.retrieval![`${FIRST_STAGE_PREFIX}${metric}`] !== undefined)) return null;
  const series = new Map<string, ChartSeries>();
  for (const cell of cells) {
    const name = cell.retriever ?? 'retriever';
    const factors = { model, retriever: name, chunking: cell.corpus ?? NO_FACTOR, depthKind: 'k' };
    const before = cell.retrieval![`${FIRST_STAGE_PREFIX}${metric}`];
    const stages = before === undefined ? [[name, cell.retrieval![metric]!] as const] : ([[`${name}: first stage`, before], [`${name}: reranked`, cell.retrieval![metric]!]] as const);
    for (const [label, y] of stages) {
      const entry = series.get(label) ?? { label, points: [] };
      if (!entry.points.some((p) => p.x === cell.k)) entry.points.push({ x: cell.k!, y, factors: { ...factors, stage: label } });
      series.set(label, entry);
    }
  }
  return lineFigureSpec({ title: `${metric}@k before and after reranking — ${model}`, xLabel: DEPTH_AXIS_TITLES.k, yLabel: `${metric}@k`, series: [...series.values()], yDomain: [0, 1] });
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

/** One figure per claim metric: a line per condition less its k (every factor that varies), intervals as error bars. */
export function claimMetricFigures(summary: RunSummary, cells: CellSummary[], model: string): { metric: ClaimMetric; spec: VegaLiteSpec }[] {
  const withK = cells.filter((c) => c.model === model && depthKindOf(c) === 'k' && c.diagnostics);
  const figures: { metric: ClaimMetric; spec: VegaLiteSpec }[] = [];
  for (const metric of CLAIM_METRICS) {
    const points = withK.flatMap((cell): FactorPoint[] => {
      const m = cell.diagnostics!.claims[metric];
      return m && m.mean !== null ? [{ factors: cellFactors(cell), name: seriesLabel(cell), point: { x: cell.k!, y: m.mean, lo: m.ciLow, hi: m.ciHigh } }] : [];
    });
    if (!points.length) continue;
    const panels = factorPanels(points, { xLabel: () => DEPTH_AXIS_TITLES.k }).map((p) => ({ ...p, title: p.title === 'all' ? CLAIM_METRIC_TITLES[metric] : `${CLAIM_METRIC_TITLES[metric]}: ${p.title}` }));
    const spec = panelledFigureSpec({ yLabel: '×100 (95% CI)', panels, xScale: 'ordinal', errorBars: true, height: 220 });
    figures.push({ metric, spec: panels.length === 1 ? { title: CLAIM_METRIC_TITLES[metric], ...spec } : spec });
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
 * Per depth curve of one model, the bootstrap probability that each depth is the best (the share of
 * resamples in which it has the highest mean) against the depth, a panel per depth kind (k, context
 * budget); the best depth is ringed. Null without depth curves.
 */
export function probabilityBestFigure(summary: RunSummary, model: string): VegaLiteSpec | null {
  const curves = (summary.depthCurves ?? []).filter((c) => c.model === model);
  const points = curves.flatMap((curve) => {
    const cell = summary.cells.find((c) => c.model === model && c.condition === curve.conditions[0]);
    if (!cell) return [];
    const factors = cellFactors(cell);
    return curve.depths.map((depth, i): FactorPoint => ({ factors, name: seriesLabel(cell), point: { x: depth, y: curve.probabilityBest[i]!, ...(depth === curve.bestK ? { mark: 'best' } : {}) } }));
  });
  if (!points.length) return null;
  const panels = factorPanels(points, { xLabel: (kind) => DEPTH_AXIS_TITLES[kind ?? 'k'] });
  const budgets = curves.some((c) => c.unit === 'contextTokens');
  return panelledFigureSpec({ yLabel: `P(best ${budgets ? 'depth' : 'k'}), bootstrap`, panels, xScale: 'ordinal', yDomain: [0, 1], height: 220 });
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
    add('score-vs-k', depthFigure(summary, model), 'Mean score against retrieval depth (k, and context budgets in a panel of their own), a line per retriever, chunking and strategy, conditions without retrieval as dashed reference lines; the ringed point is the best depth of the depth curve');
    add('score-vs-context-tokens', contextFigure(summary, model), `Mean score against mean context ${contextUnitOf(summary, model)} per answer, a line per retriever, chunking and strategy; k and token budgets in separate panels`);
    add('p-best', probabilityBestFigure(summary, model), 'Probability that each depth is the best (share of bootstrap resamples in which it has the highest mean), per depth curve; k and token budgets in separate panels');
    add('score-vs-cost', costFigure(summary, model), 'Mean score against the cost per answer (its price, else its prompt and completion tokens, estimated where the endpoint reported none)');
    add('recall-before-after-rerank', rerankRecallFigure(summary, model), 'Retrieval recall@k before and after reranking');
    add('help-hurt', helpHurtFigure(summary.cells.filter((c) => c.model === model)), 'Items retrieval helped and hurt, by what became of their gold evidence');
    for (const { metric, spec } of claimMetricFigures(summary, summary.cells, model)) add(`claims-${metric}`, spec, `Claim metric: ${CLAIM_METRIC_TITLES[metric]} against k`);
  }
  return out;
}
