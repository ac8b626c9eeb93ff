import { escapeHtml } from './escape.js';

import { SERIES_PALETTE as PALETTE } from './seriesColors.js';

/**
 * More CI bands than this overlap into one blur: past it each point's CI is drawn as an error bar
 * instead (a chart of eight methods stays readable).
 */
export const MAX_BANDS = 3;

export interface ChartPoint {
  x: number;
  y: number;
  /** 95% CI bounds; drawn as a band around the line when given. */
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

/** A horizontal reference line (e.g. closed-book) with an optional CI band. */
export interface ChartReference {
  label: string;
  y: number;
  lo?: number | null;
  hi?: number | null;
  color?: string;
}

export interface LineChartSpec {
  title?: string;
  xLabel: string;
  yLabel: string;
  series: ChartSeries[];
  references?: ChartReference[];
  /**
   * `ordinal` spaces the distinct x values evenly (retrieval depths 10, 20, 50, 100 are roughly
   * log-spaced already); `linear` places them by value.
   */
  xScale?: 'ordinal' | 'linear' | 'log';
  /** A linear axis's x range (default: the data's), for a fixed scale such as a rate from 0 to 1. */
  xDomain?: [number, number];
  /** Where the x ticks go (default: at each data x; on a log axis 1, 2, 5 × 10ⁿ); an ordinal axis keeps only data x values. */
  xTicks?: number[];
  /** The text of an x tick (default: the number), e.g. the names of ordinal categories. */
  xTickLabel?: (x: number) => string;
  /** Draw each point's CI as a vertical error bar instead of a band (for scatter-like charts). */
  errorBars?: boolean;
  /** Fixed y range; by default fitted to the data (and clipped to [0, 100] for scores). */
  yDomain?: [number, number];
  /** Total size in px (default: a 760 px plot plus the legend column, readable on a laptop screen). */
  width?: number;
  height?: number;
  /** CSS class of the <svg> element (the report's depth chart is `depth-chart`). */
  className?: string;
  /** Accessible name (default: the title, else the y label). */
  ariaLabel?: string;
}

const fmt = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(2));

/**
 * hisrag's one line-chart module: a line chart with CI bands as a self-contained SVG string, used by
 * the HTML report (score vs k, `src/report/depthChart.ts`) and by the results API for notebooks
 * (`lineChartSvg`, `saveFigure`). It renders inline in a notebook (`display.html`), in the report and
 * in any browser, and is saved as-is as a .svg file. Y ticks fall on round numbers (1, 2 or 5 × 10ⁿ).
 * Hand-written rather than a charting library: the report has no scripts and no CDN, and libraries
 * that emit static SVG need a DOM (d3 + jsdom) or a browser (Vega's renderer), which would weigh more
 * than the report itself; this file is the whole chart.
 */
export function lineChartSvg(spec: LineChartSpec): string {
  const series = spec.series.filter((s) => s.points.length > 0).map((s) => ({ ...s, points: [...s.points].sort((a, b) => a.x - b.x) }));
  const references = spec.references ?? [];
  const labels = [...references.map((r) => r.label), ...series.map((s) => s.label)];
  // The legend column is as wide as its longest label (up to 320 px) so labels are not cut off.
  const right = Math.round(Math.min(320, Math.max(120, 48 + Math.max(0, ...labels.map(textWidth)))));
  const W = spec.width ?? 816 + right;
  const H = spec.height ?? Math.max(420, 60 + 18 * labels.length);
  const left = 56, top = spec.title ? 34 : 16, bottom = 48;
  const plotW = W - left - right, plotH = H - top - bottom;

  const xs = [...new Set(series.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
  const scale = spec.xScale ?? 'ordinal';
  const ordinal = scale === 'ordinal';
  // A log axis spans whole decades around the data, so its ticks fall on 1, 2, 5 × 10ⁿ.
  const toAxis = (v: number) => (scale === 'log' ? Math.log10(Math.max(v, 1e-9)) : v);
  const [dataMin, dataMax] = xs.length ? [xs[0]!, xs[xs.length - 1]!] : [0, 1];
  const [xMin, xMax] =
    scale === 'log'
      ? [Math.floor(toAxis(dataMin)), Math.max(Math.ceil(toAxis(dataMax)), Math.floor(toAxis(dataMin)) + 1)]
      : scale === 'linear' && spec.xDomain
        ? spec.xDomain
        : [dataMin, dataMax];
  const x = (v: number) =>
    left + (ordinal ? (xs.length <= 1 ? plotW / 2 : (xs.indexOf(v) / (xs.length - 1)) * plotW) : xMax === xMin ? plotW / 2 : ((toAxis(v) - xMin) / (xMax - xMin)) * plotW);
  const xTicks = spec.xTicks ? (ordinal ? spec.xTicks.filter((v) => xs.includes(v)) : spec.xTicks) : scale === 'log' ? logTicks(xMin, xMax) : xs;

  const values = [
    ...series.flatMap((s) => s.points.flatMap((p) => [p.y, p.lo ?? p.y, p.hi ?? p.y])),
    ...references.flatMap((r) => [r.y, r.lo ?? r.y, r.hi ?? r.y]),
  ];
  let [yMin, yMax] = spec.yDomain ?? fitDomain(values);
  if (yMax === yMin) [yMin, yMax] = [yMin - 1, yMax + 1];
  const y = (v: number) => top + plotH - ((v - yMin) / (yMax - yMin)) * plotH;
  const px = (v: number) => v.toFixed(1);

  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" font-family="sans-serif"${spec.className ? ` class="${escapeHtml(spec.className)}"` : ''} aria-label="${escapeHtml(spec.ariaLabel ?? spec.title ?? spec.yLabel)}">`,
  );
  parts.push(`<rect x="0" y="0" width="${W}" height="${H}" fill="#fff"/>`);
  if (spec.title) parts.push(`<text x="${left + plotW / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${escapeHtml(spec.title)}</text>`);
  parts.push(`<rect x="${left}" y="${top}" width="${plotW}" height="${plotH}" fill="#fafafa" stroke="#ccc"/>`);
  const tickStep = niceStep((yMax - yMin) / 5);
  for (let v = Math.ceil(yMin / tickStep - 1e-9) * tickStep; v <= yMax + 1e-9; v += tickStep) {
    parts.push(`<line x1="${left}" x2="${left + plotW}" y1="${px(y(v))}" y2="${px(y(v))}" stroke="#eee"/>`);
    parts.push(`<text class="y-tick" x="${left - 6}" y="${px(y(v) + 4)}" text-anchor="end" font-size="11">${fmt(Number(v.toFixed(4)))}</text>`);
  }
  for (const v of xTicks) parts.push(`<text class="x-tick" x="${px(x(v))}" y="${top + plotH + 18}" text-anchor="middle" font-size="11">${spec.xTickLabel ? escapeHtml(spec.xTickLabel(v)) : fmt(v)}</text>`);
  parts.push(`<text x="${left + plotW / 2}" y="${H - 8}" text-anchor="middle" font-size="12">${escapeHtml(spec.xLabel)}</text>`);
  parts.push(
    `<text x="14" y="${top + plotH / 2}" text-anchor="middle" font-size="12" transform="rotate(-90 14 ${top + plotH / 2})">${escapeHtml(spec.yLabel)}</text>`,
  );

  let legendY = top + 10;
  const legend = (color: string, label: string, dashed: boolean) => {
    parts.push(
      `<line x1="${left + plotW + 12}" x2="${left + plotW + 32}" y1="${legendY}" y2="${legendY}" stroke="${color}" stroke-width="2"${dashed ? ' stroke-dasharray="5 4"' : ''}/>`,
    );
    const shown = fitText(label, right - 44);
    const title = shown === label ? '' : `<title>${escapeHtml(label)}</title>`;
    parts.push(`<text x="${left + plotW + 36}" y="${legendY + 4}" font-size="11">${title}${escapeHtml(shown)}</text>`);
    legendY += 18;
  };

  references.forEach((ref, i) => {
    const color = ref.color ?? (i === 0 ? '#555' : PALETTE[(series.length + i) % PALETTE.length]!);
    if (ref.lo != null && ref.hi != null) {
      parts.push(`<rect class="ci-band reference" x="${left}" width="${plotW}" y="${px(y(ref.hi))}" height="${px(Math.max(0.5, y(ref.lo) - y(ref.hi)))}" fill="${color}" opacity="0.10"/>`);
    }
    parts.push(
      `<line class="reference-line" x1="${left}" x2="${left + plotW}" y1="${px(y(ref.y))}" y2="${px(y(ref.y))}" stroke="${color}" stroke-width="2" stroke-dasharray="5 4"><title>${escapeHtml(`${ref.label}: ${fmt(ref.y)}`)}</title></line>`,
    );
    legend(color, ref.label, true);
  });

  series.forEach((s, i) => {
    const color = s.color ?? PALETTE[i % PALETTE.length]!;
    const banded = s.points.filter((p) => p.lo != null && p.hi != null);
    if (spec.errorBars || series.length > MAX_BANDS) {
      for (const p of banded) {
        const cx = px(x(p.x));
        parts.push(`<line class="error-bar" x1="${cx}" x2="${cx}" y1="${px(y(p.hi!))}" y2="${px(y(p.lo!))}" stroke="${color}" stroke-width="1.5" opacity="0.6"/>`);
      }
    } else if (banded.length === s.points.length && banded.length > 0) {
      const upper = s.points.map((p) => `${px(x(p.x))},${px(y(p.hi!))}`);
      const lower = s.points.map((p) => `${px(x(p.x))},${px(y(p.lo!))}`).reverse();
      parts.push(`<polygon class="ci-band" points="${[...upper, ...lower].join(' ')}" fill="${color}" opacity="0.15"/>`);
    }
    parts.push(`<polyline class="series-line" points="${s.points.map((p) => `${px(x(p.x))},${px(y(p.y))}`).join(' ')}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const p of s.points) {
      const ci = p.lo != null && p.hi != null ? ` [${fmt(p.lo)}, ${fmt(p.hi)}]` : '';
      parts.push(`<circle cx="${px(x(p.x))}" cy="${px(y(p.y))}" r="3.5" fill="${color}"><title>${escapeHtml(`${s.label} @ ${fmt(p.x)}: ${fmt(p.y)}${ci}`)}</title></circle>`);
      if (p.mark) parts.push(`<circle class="point-mark" cx="${px(x(p.x))}" cy="${px(y(p.y))}" r="7.5" fill="none" stroke="${color}" stroke-width="2"><title>${escapeHtml(`${s.label} @ ${fmt(p.x)}: ${p.mark}`)}</title></circle>`);
    }
    legend(color, s.label, false);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/** Ticks of a log axis spanning decades lo..hi (exponents): 1, 2 and 5 × 10ⁿ. */
function logTicks(lo: number, hi: number): number[] {
  const ticks: number[] = [];
  for (let e = lo; e <= hi; e++) for (const m of [1, 2, 5]) if (e < hi || m === 1) ticks.push(Number((m * 10 ** e).toPrecision(6)));
  return ticks;
}

/** Rough width of a label at font size 11: CJK characters are about twice as wide as Latin ones. */
function textWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += ch.codePointAt(0)! >= 0x2e80 ? 11 : 6.5;
  return width;
}

/** The label cut to `width` (with an ellipsis); the full text stays in the SVG as a tooltip. */
function fitText(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  let out = '';
  for (const ch of text) {
    if (textWidth(out + ch) > width - 8) break;
    out += ch;
  }
  return `${out}…`;
}

/** 1, 2 or 5 × a power of ten, at least `raw`: tick steps people read easily. */
export function niceStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw || 1));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= raw - 1e-12) ?? 10 * power;
}

/** A y range with some headroom, on round numbers; scores (all within 0–100) stay within 0–100. */
function fitDomain(values: number[]): [number, number] {
  if (values.length === 0) return [0, 1];
  const min = Math.min(...values);
  const max = Math.max(...values);
  const span = max - min || Math.abs(max) || 1;
  const step = niceStep(span / 5);
  let lo = Math.floor((min - span * 0.1) / step) * step;
  let hi = Math.ceil((max + span * 0.1) / step) * step;
  if (min >= 0) lo = Math.max(0, lo);
  if (max <= 100 && min >= 0 && span > 2) hi = Math.min(100, hi);
  if (max <= 1 && min >= 0) hi = Math.min(1, hi);
  return [lo, hi];
}
