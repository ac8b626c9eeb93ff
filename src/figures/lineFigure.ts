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
}

export interface ChartSeries {
  label: string;
  points: ChartPoint[];
  /** The series' colour; by default the palette in order. Charts of one run pass `seriesColors(summary)` so a condition keeps its colour across charts. */
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

const fmt = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(2));

interface Row {
  series: string;
  /** The small plot a row belongs to when the figure facets (references repeat in every one). */
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
}

/**
 * One line figure as a Vega-Lite spec: intervals as bands (up to `MAX_BANDS` series) or error bars,
 * reference lines, marked points ringed; past `MAX_SERIES_PER_PLOT` series, small multiples. Live, a
 * legend click hides a series and wheel/drag zooms; the width is the container's.
 */
export function lineFigureSpec(figure: LineFigure): VegaLiteSpec {
  const series = figure.series.filter((s) => s.points.length > 0);
  const references = figure.references ?? [];
  const facet = series.length > MAX_SERIES_PER_PLOT;
  const labels = [...references.map((r) => r.label), ...series.map((s) => s.label)];
  const colors = [
    ...references.map((r, i) => r.color ?? (i === 0 ? '#555555' : SERIES_PALETTE[(series.length + i) % SERIES_PALETTE.length]!)),
    ...series.map((s, i) => s.color ?? SERIES_PALETTE[i % SERIES_PALETTE.length]!),
  ];
  const interval = (lo?: number | null, hi?: number | null) => (lo != null && hi != null ? `[${fmt(lo)}, ${fmt(hi)}]` : '–');
  const rows: Row[] = [];
  for (const s of series) {
    for (const p of s.points) {
      rows.push({ series: s.label, panel: s.label, kind: 'series', x: p.x, xName: figure.xNames?.[p.x] ?? fmt(p.x), y: p.y, lo: p.lo ?? null, hi: p.hi ?? null, interval: interval(p.lo, p.hi), mark: p.mark ?? '' });
    }
  }
  for (const r of references) {
    for (const panel of facet ? series.map((s) => s.label) : ['']) {
      rows.push({ series: r.label, panel, kind: 'reference', x: null, xName: null, y: r.y, lo: r.lo ?? null, hi: r.hi ?? null, interval: interval(r.lo, r.hi), mark: '' });
    }
  }
  const ordinal = (figure.xScale ?? 'ordinal') === 'ordinal';
  const xOrder = [...new Set(rows.filter((r) => r.kind === 'series').sort((a, b) => a.x! - b.x!).map((r) => r.xName!))];
  const x = ordinal
    ? { field: 'xName', type: 'ordinal', title: figure.xLabel, sort: xOrder, axis: { labelAngle: 0, grid: false } }
    : {
        field: 'x',
        type: 'quantitative',
        title: figure.xLabel,
        // Vertical grid lines add little to a figure read along y; a log axis would draw one per minor tick.
        axis: { grid: false, ...(figure.xTicks || figure.xScale === 'log' ? { values: figure.xTicks ?? logTicks(rows.filter((r) => r.x !== null).map((r) => r.x!)) } : {}) },
        scale: { ...(figure.xScale === 'log' ? { type: 'log' } : { zero: false }), ...(figure.xDomain ? { domain: figure.xDomain } : {}) },
      };
  const y = { field: 'y', type: 'quantitative', title: figure.yLabel, axis: { tickCount: 6 }, scale: { zero: false, ...(figure.yDomain ? { domain: figure.yDomain } : {}) } };
  // Faceted, each plot is titled by its series; the legend names only what every plot repeats (the reference lines).
  const legend = !facet ? { orient: 'right', labelLimit: 320 } : references.length ? { orient: 'top', direction: 'horizontal', labelLimit: 320, values: references.map((r) => r.label) } : null;
  const color = { field: 'series', type: 'nominal', title: null, scale: { domain: labels, range: colors }, legend };
  const hiddenWhen = (shown: number) => ({ condition: { param: 'hidden', empty: false, value: 0 }, value: shown });
  const tooltip = [
    { field: 'series', title: 'series' },
    ...(ordinal ? [{ field: 'xName', title: figure.xLabel }] : [{ field: 'x', title: figure.xLabel, format: '.4~g' }]),
    { field: 'y', title: figure.yLabel, format: '.2f' },
    { field: 'interval', title: 'interval' },
    ...(rows.some((r) => r.mark !== '') ? [{ field: 'mark', title: 'note' }] : []),
  ];
  const bands = !figure.errorBars && series.length <= MAX_BANDS;
  const isSeries = { filter: "datum.kind === 'series'" };
  const isReference = { filter: "datum.kind === 'reference'" };
  const layer: VegaLiteSpec[] = [
    {
      name: 'reference-band',
      transform: [isReference, { filter: 'datum.lo != null' }],
      mark: { type: 'rect', opacity: 0.1 },
      encoding: { y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' }, color, opacity: hiddenWhen(0.1) },
    },
    {
      name: 'reference-line',
      transform: [isReference],
      mark: { type: 'rule', strokeDash: [5, 4], strokeWidth: 2 },
      encoding: { y, color, tooltip, opacity: hiddenWhen(1) },
    },
    bands
      ? { name: 'ci-band', transform: [isSeries, { filter: 'datum.lo != null' }], mark: { type: 'area', opacity: 0.15 }, encoding: { x, y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' }, color, opacity: hiddenWhen(0.15) } }
      : { name: 'error-bar', transform: [isSeries, { filter: 'datum.lo != null' }], mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { x, y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' }, color, opacity: hiddenWhen(0.6) } },
    {
      name: 'series-line',
      transform: [isSeries],
      params: [
        { name: 'hidden', select: { type: 'point', fields: ['series'], toggle: 'true' }, bind: 'legend' },
        { name: 'zoom', select: { type: 'interval', encodings: ordinal ? ['y'] : ['x', 'y'] }, bind: 'scales' },
      ],
      mark: { type: 'line', point: { size: 40, filled: true }, strokeWidth: 2 },
      encoding: { x, y, color, tooltip, opacity: hiddenWhen(1) },
    },
    {
      name: 'point-mark',
      transform: [isSeries, { filter: "datum.mark !== ''" }],
      mark: { type: 'point', size: 220, strokeWidth: 2, filled: false },
      encoding: { x, y, color, tooltip, opacity: hiddenWhen(1) },
    },
  ];
  const height = figure.height ?? (facet ? 200 : 360);
  const base = { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', ...(figure.title ? { title: figure.title } : {}), data: { values: rows }, config: FIGURE_CONFIG };
  if (!facet) return { ...base, width: 'container', height, layer, autosize: { type: 'fit-x', contains: 'padding' } };
  return {
    ...base,
    facet: { field: 'panel', type: 'nominal', title: null, sort: series.map((s) => s.label), header: { labelFontSize: 12, labelLimit: 300 } },
    columns: FACET_COLUMNS,
    resolve: { scale: { y: 'shared', x: 'shared' } },
    spec: { width: 'container', height, layer },
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
  title: { fontSize: 14 },
};
