import type { CellSummary } from '../runFiles/summary.js';
import { MAX_SERIES_PER_PLOT, REFERENCE_COLORS, type ChartPoint, type ChartReference, type ChartSeries, type LinePanel } from './lineFigure.js';
import { SERIES_PALETTE } from './palette.js';

/**
 * The one figure model: what tells the conditions of a run apart. A series of any figure is one value
 * of every factor that is not on an axis, so no line joins points of two retrievers, chunkings,
 * strategies, methods, models or depth kinds; the depth's value is what a line runs along.
 */
export const FACTORS = ['model', 'retriever', 'chunking', 'strategy', 'method', 'depthKind'] as const;
export type Factor = (typeof FACTORS)[number];
/** A condition's factors; `–` where it has none (closed-book has no retriever, chunking or depth kind). */
export type PointFactors = Record<Factor, string>;
export type DepthKind = 'k' | 'contextTokens';

/** A depth kind's name: every axis over points of that kind says it (and never the other's). */
export const DEPTH_KIND_NAMES: Record<DepthKind, string> = { k: 'depth k', contextTokens: 'context budget' };
/** The title of an axis that is the depth itself. */
export const DEPTH_AXIS_TITLES: Record<DepthKind, string> = { k: 'retrieval depth k (passages)', contextTokens: 'context budget (tokens)' };
/** The title of a panel holding one depth kind's points. */
const PANEL_TITLES: Record<DepthKind, string> = { k: 'by retrieval depth k', contextTokens: 'by context budget' };

export const NO_FACTOR = '–';

export function depthKindOf(cell: Pick<CellSummary, 'k'> & { contextTokens?: number | undefined }): DepthKind | null {
  if (cell.contextTokens !== undefined) return 'contextTokens';
  return cell.k !== null ? 'k' : null;
}

/** The factors of a summary cell. */
export function cellFactors(cell: CellSummary): PointFactors {
  return {
    model: cell.model,
    retriever: cell.retriever ?? NO_FACTOR,
    chunking: cell.corpus ?? NO_FACTOR,
    strategy: cell.strategy,
    method: cell.methodSpec?.name ?? cell.strategy,
    depthKind: depthKindOf(cell) ?? NO_FACTOR,
  };
}

/** A point of a figure and the factors of the condition it stands for. */
export interface FactorPoint {
  factors: PointFactors;
  point: ChartPoint;
  /** The series' name where no factor tells it apart (one retriever and one strategy): its condition less the depth (`rag` of `rag@10`). */
  name?: string;
}

export interface PanelOptions {
  /** The x axis title of a panel of one depth kind (null: points without depth, e.g. only closed-book). */
  xLabel: (kind: DepthKind | null) => string;
  /** Reference lines repeated in every panel (closed-book). */
  references?: ChartReference[];
  xNames?: Record<number, string>;
  /** At most this many series share a plot; past it another factor becomes panels. */
  maxSeries?: number;
}

/** Factors in the order a label names them and a panel is chosen by. */
const LABEL_ORDER: Factor[] = ['model', 'retriever', 'chunking', 'strategy', 'method'];

const identity = (f: PointFactors, of: readonly Factor[] = FACTORS) => of.map((k) => f[k]).join('\u0000');

/** Whether `target` is a function of `given` over the points (each combination of `given` has one value of it). */
function determines(points: PointFactors[], given: Factor[], target: Factor): boolean {
  const seen = new Map<string, string>();
  for (const p of points) {
    const key = identity(p, given);
    if (seen.has(key) && seen.get(key) !== p[target]) return false;
    seen.set(key, p[target]);
  }
  return true;
}

/** The largest number of series in one panel when the points are split by `panelFactors`. */
function seriesPerPanel(points: PointFactors[], panelFactors: Factor[]): number {
  const panels = new Map<string, Set<string>>();
  for (const p of points) {
    const key = identity(p, panelFactors);
    panels.set(key, (panels.get(key) ?? new Set()).add(identity(p)));
  }
  return Math.max(0, ...[...panels.values()].map((s) => s.size));
}

/** The factors that split the figure into panels: the depth kind whenever both occur, then the factor that best keeps each panel within `max` series. */
function panelFactorsOf(points: PointFactors[], varying: Factor[], max: number): Factor[] {
  const panel: Factor[] = varying.includes('depthKind') ? ['depthKind'] : [];
  if (seriesPerPanel(points, panel) <= max) return panel;
  const candidates = LABEL_ORDER.filter((f) => varying.includes(f));
  const best = candidates.map((f) => ({ f, n: seriesPerPanel(points, [...panel, f]) })).sort((a, b) => a.n - b.n)[0];
  return best ? [...panel, best.f] : panel;
}

/** The factors a label names: those that vary within panels, less those the others determine (a retriever label that names its chunking). */
function labelFactorsOf(points: PointFactors[], varying: Factor[], panelFactors: Factor[]): Factor[] {
  let label = LABEL_ORDER.filter((f) => varying.includes(f) && !panelFactors.includes(f));
  for (const f of [...label].reverse()) {
    const rest = label.filter((g) => g !== f);
    if (rest.length > 0 && determines(points, [...rest, ...panelFactors], f)) label = rest;
  }
  return label;
}

/** A series' name where its label factors say nothing (a single series; closed-book beside retrievers): the name its points give, else its retriever, else its strategy. */
const fallbackLabel = (f: PointFactors, names: Map<string, string>) => names.get(identity(f)) ?? (f.retriever !== NO_FACTOR ? f.retriever : f.strategy);

/**
 * Names series by the label factors; the name is what Vega draws a line per, so two series of one
 * panel never share it: where the short names would collide, every varying factor is named.
 */
function seriesNamer(points: PointFactors[], varying: Factor[], panelFactors: Factor[], names: Map<string, string>): (f: PointFactors) => string {
  const name = (of: Factor[], f: PointFactors) => of.map((l) => f[l]).filter((v) => v !== NO_FACTOR).join(' · ') || fallbackLabel(f, names);
  const short = labelFactorsOf(points, varying, panelFactors);
  const full = LABEL_ORDER.filter((f) => varying.includes(f) && !panelFactors.includes(f));
  const named = new Map<string, string>();
  for (const p of points) {
    const key = `${identity(p, panelFactors)}\u0000${name(short, p)}`;
    if (named.has(key) && named.get(key) !== identity(p)) return (f) => full.map((l) => f[l]).join(' · ') || fallbackLabel(f, names);
    named.set(key, identity(p));
  }
  return (f) => name(short, f);
}

const panelTitle = (f: PointFactors, panelFactors: Factor[]) =>
  panelFactors.map((p) => (p === 'depthKind' ? PANEL_TITLES[f.depthKind as DepthKind] ?? 'without depth' : f[p])).join(' · ');

/**
 * The panels of a figure from its points: a series per combination of every factor (each point keeps
 * its factors), panels per depth kind when both occur and per one more factor where the series would
 * exceed what colour carries. Points without a depth kind (closed-book in a cost figure) repeat in
 * every panel, in the greys of reference lines. Colours follow the series' labels in the order of the points.
 */
export function factorPanels(points: FactorPoint[], options: PanelOptions): LinePanel[] {
  const all = points.map((p) => p.factors);
  // Points without a depth (closed-book beside retrieving conditions) split nothing: they repeat in every panel.
  const placed = all.some((p) => p.depthKind !== NO_FACTOR) ? all.filter((p) => p.depthKind !== NO_FACTOR) : all;
  const varying = FACTORS.filter((f) => new Set(placed.map((p) => p[f])).size > 1);
  const panelFactors = panelFactorsOf(placed, varying, options.maxSeries ?? MAX_SERIES_PER_PLOT);
  // A series keeps its name, and so its colour, in every figure of the run: only the depth kind, which every panel title says, is left out of it.
  const names = new Map(points.filter((p) => p.name !== undefined).map((p) => [identity(p.factors), p.name!]));
  const labelOf = seriesNamer(all, FACTORS.filter((f) => new Set(all.map((p) => p[f])).size > 1), panelFactors.filter((f) => f === 'depthKind'), names);
  const colors = new Map<string, string>();
  const undepthed = new Set<string>();
  const panels = new Map<string, { kind: DepthKind | null; series: Map<string, ChartSeries> }>();
  const place = (factors: PointFactors, point: ChartPoint, at: PointFactors) => {
    const title = panelTitle(at, panelFactors);
    const panel = panels.get(title) ?? { kind: at.depthKind === NO_FACTOR ? null : (at.depthKind as DepthKind), series: new Map() };
    panels.set(title, panel);
    const label = labelOf(factors);
    // Without a depth, the greys of reference lines (closed-book is one in the score-vs-depth figure).
    if (!colors.has(label) && factors.depthKind === NO_FACTOR) colors.set(label, REFERENCE_COLORS[undepthed.add(label).size - 1] ?? REFERENCE_COLORS.at(-1)!);
    if (!colors.has(label)) colors.set(label, SERIES_PALETTE[(colors.size - undepthed.size) % SERIES_PALETTE.length]!);
    const key = identity(factors);
    const series = panel.series.get(key) ?? { label, points: [], color: colors.get(label)! };
    series.points.push({ ...point, factors: { ...factors } });
    panel.series.set(key, series);
  };
  const panelsOf = [...new Map(placed.map((p) => [identity(p, panelFactors), p])).values()];
  for (const { factors, point } of points) {
    // Without a depth of its own, a point is drawn in every panel (closed-book's cost beside each method's).
    const homes = factors.depthKind === NO_FACTOR && placed !== all ? panelsOf : [factors];
    for (const at of homes) place(factors, point, at);
  }
  return [...panels.entries()].map(([title, p]) => ({
    title: title || 'all',
    xLabel: options.xLabel(p.kind),
    series: [...p.series.values()].map((s) => ({ ...s, points: [...s.points].sort((a, b) => a.x - b.x) })),
    references: options.references ?? [],
    ...(options.xNames ? { xNames: options.xNames } : {}),
  }));
}
