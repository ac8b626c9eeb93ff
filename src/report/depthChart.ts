import type { CellSummary, RunSummary } from '../experiment/summary.js';
import { escapeHtml } from './escape.js';

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2'];

interface Series {
  label: string;
  points: { k: number; mean: number; lo: number; hi: number }[];
}

interface Reference {
  label: string;
  mean: number;
  lo: number;
  hi: number;
}

/**
 * Score vs retrieval depth for one model as an inline SVG: one line per retrieval strategy
 * (and retriever) with its 95% CI band, closed-book strategies as horizontal reference lines
 * with their CI bands. Hand-written SVG because the report must work offline with no CDN and
 * a charting library bundled inline would dwarf the report itself.
 */
export function depthChartSvg(summary: RunSummary, model: string): string | null {
  const cells = summary.cells.filter((c) => c.model === model && c.score.mean !== null);
  const seriesMap = new Map<string, Series>();
  const references: Reference[] = [];
  for (const cell of cells) {
    if (cell.k === null) {
      references.push({ label: cell.condition, mean: cell.score.mean!, lo: cell.score.ciLow ?? cell.score.mean!, hi: cell.score.ciHigh ?? cell.score.mean! });
      continue;
    }
    const label = seriesLabel(cell);
    const series = seriesMap.get(label) ?? { label, points: [] };
    series.points.push({ k: cell.k, mean: cell.score.mean!, lo: cell.score.ciLow ?? cell.score.mean!, hi: cell.score.ciHigh ?? cell.score.mean! });
    seriesMap.set(label, series);
  }
  const series = [...seriesMap.values()];
  if (series.length === 0) return null;
  const depths = [...new Set(series.flatMap((s) => s.points.map((p) => p.k)))].sort((a, b) => a - b);
  for (const s of series) s.points.sort((a, b) => a.k - b.k);

  const all = [...series.flatMap((s) => s.points.flatMap((p) => [p.lo, p.hi])), ...references.flatMap((r) => [r.lo, r.hi])];
  let yMin = Math.max(0, Math.floor((Math.min(...all) - 5) / 5) * 5);
  let yMax = Math.min(100, Math.ceil((Math.max(...all) + 5) / 5) * 5);
  if (yMax - yMin < 10) {
    yMin = Math.max(0, yMin - 5);
    yMax = Math.min(100, yMax + 5);
  }
  const W = 640, H = 360, left = 56, right = 170, top = 20, bottom = 48;
  const plotW = W - left - right, plotH = H - top - bottom;
  // Depths are spaced evenly (10, 20, 50, 100 are roughly log-spaced already).
  const x = (k: number) => left + (depths.length === 1 ? plotW / 2 : (depths.indexOf(k) / (depths.length - 1)) * plotW);
  const y = (v: number) => top + plotH - ((v - yMin) / (yMax - yMin || 1)) * plotH;

  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" class="depth-chart" aria-label="score vs k for ${escapeHtml(model)}">`);
  parts.push(`<rect x="${left}" y="${top}" width="${plotW}" height="${plotH}" fill="#fafafa" stroke="#ccc"/>`);
  for (let v = yMin; v <= yMax; v += (yMax - yMin) / 5) {
    parts.push(`<line x1="${left}" x2="${left + plotW}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#eee"/>`);
    parts.push(`<text x="${left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-size="11">${v.toFixed(0)}</text>`);
  }
  for (const k of depths) {
    parts.push(`<text x="${x(k).toFixed(1)}" y="${top + plotH + 18}" text-anchor="middle" font-size="11">${k}</text>`);
  }
  parts.push(`<text x="${left + plotW / 2}" y="${H - 8}" text-anchor="middle" font-size="12">retrieval depth k</text>`);
  parts.push(`<text x="14" y="${top + plotH / 2}" text-anchor="middle" font-size="12" transform="rotate(-90 14 ${top + plotH / 2})">mean score (95% CI)</text>`);

  let legendY = top + 10;
  const legend = (color: string, label: string, dashed: boolean) => {
    parts.push(`<line x1="${left + plotW + 12}" x2="${left + plotW + 32}" y1="${legendY}" y2="${legendY}" stroke="${color}" stroke-width="2"${dashed ? ' stroke-dasharray="5 4"' : ''}/>`);
    parts.push(`<text x="${left + plotW + 36}" y="${legendY + 4}" font-size="11">${escapeHtml(label)}</text>`);
    legendY += 18;
  };

  references.forEach((ref, i) => {
    const color = i === 0 ? '#555' : PALETTE[(series.length + i) % PALETTE.length]!;
    parts.push(`<rect class="ci-band reference" x="${left}" width="${plotW}" y="${y(ref.hi).toFixed(1)}" height="${Math.max(0.5, y(ref.lo) - y(ref.hi)).toFixed(1)}" fill="${color}" opacity="0.10"/>`);
    parts.push(`<line class="reference-line" x1="${left}" x2="${left + plotW}" y1="${y(ref.mean).toFixed(1)}" y2="${y(ref.mean).toFixed(1)}" stroke="${color}" stroke-width="2" stroke-dasharray="5 4"><title>${escapeHtml(`${ref.label}: ${ref.mean.toFixed(2)} [${ref.lo.toFixed(2)}, ${ref.hi.toFixed(2)}]`)}</title></line>`);
    legend(color, ref.label, true);
  });

  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    const upper = s.points.map((p) => `${x(p.k).toFixed(1)},${y(p.hi).toFixed(1)}`);
    const lower = s.points.map((p) => `${x(p.k).toFixed(1)},${y(p.lo).toFixed(1)}`).reverse();
    parts.push(`<polygon class="ci-band" points="${[...upper, ...lower].join(' ')}" fill="${color}" opacity="0.15"/>`);
    parts.push(`<polyline class="series-line" points="${s.points.map((p) => `${x(p.k).toFixed(1)},${y(p.mean).toFixed(1)}`).join(' ')}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const p of s.points) {
      parts.push(`<circle cx="${x(p.k).toFixed(1)}" cy="${y(p.mean).toFixed(1)}" r="3.5" fill="${color}"><title>${escapeHtml(`${s.label}@${p.k}: ${p.mean.toFixed(2)} [${p.lo.toFixed(2)}, ${p.hi.toFixed(2)}]`)}</title></circle>`);
    }
    legend(color, s.label, false);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

function seriesLabel(cell: CellSummary): string {
  const at = cell.condition.lastIndexOf('@');
  return at > 0 ? cell.condition.slice(0, at) : cell.condition;
}
