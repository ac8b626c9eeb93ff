import { SERIES_PALETTE } from './palette.js';

/**
 * A Vega-Lite spec: plain JSON, saved beside a run (`figures/<name>.vl.json`), rendered to static
 * SVG for the report (`render.ts`) and interactively in the viewer (vega-embed).
 */
export type VegaLiteSpec = Record<string, unknown>;

export interface ChartPoint {
  x: number;
  y: number;
  /** Interval bounds; drawn as a band (or an error bar) around the line when given. */
  lo?: number | null;
  hi?: number | null;
  /** A note that rings the point (the depth curve's best k and its probability). */
  mark?: string;
  /** The factors of the condition the point stands for (`figureModel.ts`), carried into the spec's rows for `figureViolations`. */
  factors?: Record<string, string>;
}

export interface ChartSeries {
  label: string;
  points: ChartPoint[];
  /** The series' colour; by default the palette in order (`figureModel.ts` gives a label one colour in every panel). */
  color?: string;
}

/** A horizontal reference line (e.g. closed-book) with an optional interval band. */
export interface ChartReference {
  label: string;
  y: number;
  lo?: number | null;
  hi?: number | null;
  color?: string;
}

export interface LineFigure {
  title?: string;
  xLabel: string;
  yLabel: string;
  series: ChartSeries[];
  references?: ChartReference[];
  /** `ordinal` spaces the distinct x values evenly (depths 10, 20, 50, 100); `linear` and `log` place them by value. */
  xScale?: 'ordinal' | 'linear' | 'log';
  /** A linear axis's x range (default: the data's), e.g. a rate from 0 to 1. */
  xDomain?: [number, number];
  /** Where a continuous x axis puts its ticks (default: Vega's choice). */
  xTicks?: number[];
  /** Names of ordinal x values (e.g. gold positions); default: the number. */
  xNames?: Record<number, string>;
  /** Draw each point's interval as an error bar instead of a band. */
  errorBars?: boolean;
  /** Fixed y range; by default fitted to the data. */
  yDomain?: [number, number];
  /** Height of one plot in px. */
  height?: number;
}

/** More interval bands than this overlap into one blur: past it each point's interval is an error bar. */
export const MAX_BANDS = 3;
/** More series than this pile up in one plot: past it the figure facets, one small plot per series. */
export const MAX_SERIES_PER_PLOT = 6;
/** Small multiples per row. */
export const FACET_COLUMNS = 3;
/** The width of one panel of a panelled figure (live; a static render fits the panels to its width). */
export const PANEL_WIDTH = 360;
/** Reference lines (closed-book) in greys that no series takes, so a dashed line never reads as a series. */
export const REFERENCE_COLORS = ['#444444', '#888888', '#aaaaaa'];

const fmt = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(2));

interface Row {
  series: string;
  /** The plot a row belongs to: a panel of a panelled figure, or a series' small multiple (references repeat in every one). */
  panel: string;
  kind: 'series' | 'reference';
  x: number | null;
  xName: string | null;
  y: number;
  lo: number | null;
  hi: number | null;
  interval: string;
  /** A note on the point ('' when none: a tooltip would print null). */
  mark: string;
  /** The factors of the condition a point stands for (null without): what `figureViolations` checks. */
  factors: Record<string, string> | null;
}

const intervalText = (lo?: number | null, hi?: number | null) => (lo != null && hi != null ? `[${fmt(lo)}, ${fmt(hi)}]` : '–');

function seriesRows(series: ChartSeries[], panelOf: (s: ChartSeries) => string, xNames?: Record<number, string>): Row[] {
  return series.flatMap((s) =>
    s.points.map((p) => ({ series: s.label, panel: panelOf(s), kind: 'series' as const, x: p.x, xName: xNames?.[p.x] ?? fmt(p.x), y: p.y, lo: p.lo ?? null, hi: p.hi ?? null, interval: intervalText(p.lo, p.hi), mark: p.mark ?? '', factors: p.factors ?? null })),
  );
}

function referenceRows(references: ChartReference[], panels: string[]): Row[] {
  return references.flatMap((r) => panels.map((panel) => ({ series: r.label, panel, kind: 'reference' as const, x: null, xName: null, y: r.y, lo: r.lo ?? null, hi: r.hi ?? null, interval: intervalText(r.lo, r.hi), mark: '', factors: null })));
}

/** The colour scale: reference lines in greys, series in the palette (or their own colour), one legend entry per label. */
function colorScale(series: ChartSeries[], references: ChartReference[]): { domain: string[]; range: string[] } {
  const domain: string[] = [];
  const range: string[] = [];
  const add = (label: string, color: string) => {
    if (domain.includes(label)) return;
    domain.push(label);
    range.push(color);
  };
  references.forEach((r, i) => add(r.label, r.color ?? REFERENCE_COLORS[i % REFERENCE_COLORS.length]!));
  series.forEach((s) => add(s.label, s.color ?? SERIES_PALETTE[(domain.length - references.length) % SERIES_PALETTE.length]!));
  return { domain, range };
}

interface PlotOptions {
  xLabel: string;
  yLabel: string;
  xScale?: 'ordinal' | 'linear' | 'log';
  xDomain?: [number, number];
  xTicks?: number[];
  yDomain?: [number, number];
  errorBars?: boolean;
  /** Series drawn in the plot (bands only up to `MAX_BANDS`). */
  seriesCount: number;
  /** Legend toggling and zoom (one plot per figure: Vega-Lite's parameters are per view). */
  interactive: boolean;
}

/** The layers of one plot: reference bands, lines and labels, intervals, series lines and ringed points. */
function plotLayers(rows: Row[], color: Record<string, unknown>, o: PlotOptions): VegaLiteSpec[] {
  const ordinal = (o.xScale ?? 'ordinal') === 'ordinal';
  const xOrder = [...new Set(rows.filter((r) => r.kind === 'series').sort((a, b) => a.x! - b.x!).map((r) => r.xName!))];
  const x = ordinal
    ? { field: 'xName', type: 'ordinal', title: o.xLabel, sort: xOrder, axis: { labelAngle: 0, grid: false } }
    : {
        field: 'x',
        type: 'quantitative',
        title: o.xLabel,
        // Vertical grid lines add little to a figure read along y; a log axis would draw one per minor tick.
        axis: { grid: false, ...(o.xTicks || o.xScale === 'log' ? { values: o.xTicks ?? logTicks(rows.filter((r) => r.x !== null).map((r) => r.x!)) } : {}) },
        scale: { ...(o.xScale === 'log' ? { type: 'log' } : { zero: false }), ...(o.xDomain ? { domain: o.xDomain } : {}) },
      };
  const y = { field: 'y', type: 'quantitative', title: o.yLabel, axis: { tickCount: 6 }, scale: { zero: false, ...(o.yDomain ? { domain: o.yDomain } : {}) } };
  const shown = (value: number) => (o.interactive ? { opacity: { condition: { param: 'hidden', empty: false, value: 0 }, value } } : {});
  const tooltip = [
    { field: 'series', title: 'series' },
    ...(ordinal ? [{ field: 'xName', title: o.xLabel }] : [{ field: 'x', title: o.xLabel, format: '.4~g' }]),
    { field: 'y', title: o.yLabel, format: '.2f' },
    { field: 'interval', title: 'interval' },
    ...(rows.some((r) => r.mark !== '') ? [{ field: 'mark', title: 'note' }] : []),
  ];
  const isSeries = { filter: "datum.kind === 'series'" };
  const isReference = { filter: "datum.kind === 'reference'" };
  const interval = !o.errorBars && o.seriesCount <= MAX_BANDS
    ? { name: 'ci-band', transform: [isSeries, { filter: 'datum.lo != null' }], mark: { type: 'area', opacity: 0.15 }, encoding: { x, y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' }, color, ...shown(0.15) } }
    : { name: 'error-bar', transform: [isSeries, { filter: 'datum.lo != null' }], mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { x, y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' }, color, ...shown(0.6) } };
  const params = [
    { name: 'hidden', select: { type: 'point', fields: ['series'], toggle: 'true' }, bind: 'legend' },
    { name: 'zoom', select: { type: 'interval', encodings: ordinal ? ['y'] : ['x', 'y'] }, bind: 'scales' },
  ];
  return [
    { name: 'reference-band', transform: [isReference, { filter: 'datum.lo != null' }], mark: { type: 'rect', opacity: 0.1 }, encoding: { y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' }, color, ...shown(0.1) } },
    { name: 'reference-line', transform: [isReference], mark: { type: 'rule', strokeDash: [5, 4], strokeWidth: 2 }, encoding: { y, color, tooltip, ...shown(1) } },
    // Named at its right end, so a reference line reads without the legend (and in grey print).
    { name: 'reference-label', transform: [isReference], mark: { type: 'text', align: 'right', baseline: 'bottom', dx: -3, dy: -3 }, encoding: { x: { value: 'width' }, y, text: { field: 'series' }, color, ...shown(1) } },
    interval,
    { name: 'series-line', transform: [isSeries], ...(o.interactive ? { params } : {}), mark: { type: 'line', point: { size: 40, filled: true }, strokeWidth: 2 }, encoding: { x, y, color, tooltip, ...shown(1) } },
    { name: 'point-mark', transform: [isSeries, { filter: "datum.mark !== ''" }], mark: { type: 'point', size: 220, strokeWidth: 2, filled: false }, encoding: { x, y, color, tooltip, ...shown(1) } },
  ];
}

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

/**
 * One line figure as a Vega-Lite spec: intervals as bands (up to `MAX_BANDS` series) or error bars,
 * reference lines, marked points ringed; past `MAX_SERIES_PER_PLOT` series, small multiples. Live, a
 * legend click hides a series and wheel/drag zooms; the width is the container's.
 */
export function lineFigureSpec(figure: LineFigure): VegaLiteSpec {
  const series = figure.series.filter((s) => s.points.length > 0);
  const references = figure.references ?? [];
  const facet = series.length > MAX_SERIES_PER_PLOT;
  const rows = [...seriesRows(series, (s) => (facet ? s.label : ''), figure.xNames), ...referenceRows(references, facet ? series.map((s) => s.label) : [''])];
  // Faceted, each plot is titled by its series; the legend names only what every plot repeats (the reference lines).
  const legend = !facet ? { orient: 'right', labelLimit: 320 } : references.length ? { orient: 'top', direction: 'horizontal', labelLimit: 320, values: references.map((r) => r.label) } : null;
  const color = { field: 'series', type: 'nominal', title: null, scale: colorScale(series, references), legend };
  const layer = plotLayers(rows, color, { ...figure, seriesCount: series.length, interactive: true });
  const height = figure.height ?? (facet ? 200 : 360);
  const base = { $schema: SCHEMA, ...(figure.title ? { title: figure.title } : {}), data: { values: rows }, config: FIGURE_CONFIG };
  if (!facet) return { ...base, width: 'container', height, layer, autosize: { type: 'fit-x', contains: 'padding' } };
  return {
    ...base,
    facet: { field: 'panel', type: 'nominal', title: null, sort: series.map((s) => s.label), header: { labelLimit: 300 } },
    columns: FACET_COLUMNS,
    resolve: { scale: { y: 'shared', x: 'shared' } },
    spec: { width: 'container', height, layer },
  };
}

/** One plot of a panelled figure: its own title and x axis (a depth kind never shares an axis with another). */
export interface LinePanel {
  /** Unique within the figure. */
  title: string;
  xLabel: string;
  series: ChartSeries[];
  references?: ChartReference[];
  xNames?: Record<number, string>;
}

export interface PanelledFigure {
  yLabel: string;
  panels: LinePanel[];
  xScale?: 'ordinal' | 'linear' | 'log';
  errorBars?: boolean;
  yDomain?: [number, number];
  height?: number;
}

/**
 * A figure of several plots side by side (Vega-Lite `concat`), each with its own x axis and title,
 * sharing the y scale and one colour legend (a series keeps its colour in every panel). One panel is
 * an ordinary `lineFigureSpec` figure.
 */
export function panelledFigureSpec(figure: PanelledFigure): VegaLiteSpec {
  const panels = figure.panels.map((p) => ({ ...p, series: p.series.filter((s) => s.points.length > 0) })).filter((p) => p.series.length > 0);
  if (panels.length === 1) {
    const [only] = panels;
    return lineFigureSpec({ ...figure, xLabel: only!.xLabel, series: only!.series, references: only!.references ?? [], ...(only!.xNames ? { xNames: only!.xNames } : {}) });
  }
  const rows = panels.flatMap((p) => [...seriesRows(p.series, () => p.title, p.xNames), ...referenceRows(p.references ?? [], [p.title])]);
  const allReferences = panels.flatMap((p) => p.references ?? []);
  const color = { field: 'series', type: 'nominal', title: null, scale: colorScale(panels.flatMap((p) => p.series), allReferences), legend: { orient: 'right', labelLimit: 320 } };
  const height = figure.height ?? 300;
  // Bands or error bars by the figure's series, not a panel's: one figure draws its intervals one way.
  const labels = new Set(panels.flatMap((p) => p.series.map((s) => s.label))).size;
  // Each panel carries its own rows (a filter on shared data lets Vega's optimiser merge the panels' line data).
  return {
    $schema: SCHEMA,
    config: FIGURE_CONFIG,
    // A static render fits the panels to its width (`render.ts`); live, each is `PANEL_WIDTH`.
    usermeta: { fitPanels: true },
    concat: panels.map((p, i) => {
      const own = rows.filter((r) => r.panel === p.title);
      // Layer names become Vega mark names, which must be unique in the figure.
      const layer = plotLayers(own, color, { ...figure, xLabel: p.xLabel, seriesCount: labels, interactive: false }).map((l) => ({ ...l, name: `panel${i + 1}-${String(l.name)}` }));
      return { title: p.title, width: PANEL_WIDTH, height, data: { values: own }, layer };
    }),
    columns: 2,
    resolve: { scale: { y: 'shared', x: 'independent', color: 'shared' }, axis: { x: 'independent' } },
  };
}

/** Ticks of a log axis at 1, 2 and 5 × 10ⁿ over the data's range (Vega's own draws every minor tick, mostly unlabelled). */
function logTicks(xs: number[]): number[] {
  if (!xs.length) return [];
  const lo = Math.floor(Math.log10(Math.max(1e-9, Math.min(...xs))));
  const hi = Math.ceil(Math.log10(Math.max(1e-9, Math.max(...xs))));
  const ticks: number[] = [];
  for (let e = lo; e <= hi; e++) for (const m of [1, 2, 5]) ticks.push(Number((m * 10 ** e).toPrecision(6)));
  return ticks.filter((t) => t >= Math.min(...xs) / 2 && t <= Math.max(...xs) * 2);
}

/** One look for every figure: system fonts (CJK labels included), light grid, no chart border. */
export const FIGURE_CONFIG = {
  font: 'system-ui, -apple-system, "Noto Sans CJK SC", "PingFang SC", sans-serif',
  view: { stroke: '#ccc' },
  axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#eee' },
  legend: { labelFontSize: 11, symbolType: 'circle', symbolOpacity: 1 },
  header: { labelFontSize: 12 },
  text: { fontSize: 11 },
  title: { fontSize: 14 },
};
