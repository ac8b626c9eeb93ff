import { meanAxisTitle, summaryMetric } from '../scoring/metrics.js';
import type { RunSummary } from '../runFiles/summary.js';
import { lineChartSvg, type ChartReference, type ChartSeries } from './lineChart.js';
import { seriesColors, seriesLabel } from './seriesColors.js';
import { escapeHtml } from './escape.js';

/**
 * The depth curves of one model as an HTML table: slope over ln k with its interval, per depth the
 * bootstrap probability that it is the best (a bar), and deepest − best. Empty when none.
 */
export function depthCurveTableHtml(summary: RunSummary, model: string): string {
  const curves = (summary.depthCurves ?? []).filter((c) => c.model === model);
  if (!curves.length) return '';
  const n = (x: number) => x.toFixed(2);
  const rows = curves.map((c) => {
    const bars = c.depths
      .map((k, i) => {
        const p = c.probabilityBest[i]!;
        return `<div class="pbest"><span class="k">k=${k}</span><span class="bar" style="display:inline-block;width:${Math.round(80 * p)}px;height:8px;background:#4a7fb5"></span> ${n(p)}</div>`;
      })
      .join('');
    const gap = c.deepestMinusBest;
    return `<tr><td>${escapeHtml(seriesLabel({ condition: c.conditions[0]!, k: c.depths[0]! }))}</td><td>${n(c.slope.estimate)} <span class="ci">[${n(c.slope.ciLow)}, ${n(c.slope.ciHigh)}]</span></td><td>${c.bestK}</td><td>${bars}</td><td>${n(gap.estimate)} <span class="ci">[${n(gap.ciLow)}, ${n(gap.ciHigh)}]</span>${c.deepestBelowBest ? ' <b>below</b>' : ''}</td><td>${c.n}</td></tr>`;
  });
  return (
    `<table class="depth-curves"><thead><tr><th>series</th><th>slope per ln k [95% CI]</th><th>best k</th><th>P(best) per k</th><th>deepest − best [95% CI]</th><th>n</th></tr></thead><tbody>${rows.join('')}</tbody></table>` +
    `<p class="meta">Paired over the questions scored at every depth${summary.cluster ? `, bootstrapped over clusters (${escapeHtml(summary.cluster)})` : ''}; the ringed point of each line is its best k.</p>`
  );
}

/**
 * Score vs retrieval depth for one model (drawn by the shared chart module, `lineChart.ts`): one line
 * per retrieval strategy (and retriever) with its 95% CI band, closed-book strategies as horizontal
 * reference lines with their CI bands. `null` when the model has no retrieval conditions.
 */
export function depthChartSvg(summary: RunSummary, model: string): string | null {
  const cells = summary.cells.filter((c) => c.model === model && c.score.mean !== null);
  const series = new Map<string, ChartSeries>();
  const references: ChartReference[] = [];
  const colors = seriesColors(summary);
  for (const cell of cells) {
    const { mean, ciLow, ciHigh } = cell.score;
    if (cell.k === null) {
      references.push({ label: cell.condition, y: mean!, lo: ciLow ?? mean, hi: ciHigh ?? mean, color: colors.get(cell.condition)! });
      continue;
    }
    const label = seriesLabel(cell);
    const entry = series.get(label) ?? { label, points: [], color: colors.get(label)! };
    const curve = summary.depthCurves?.find((c) => c.model === model && c.bestK === cell.k && c.conditions.includes(cell.condition));
    const mark = curve ? `best k, P(best) ${curve.probabilityBest[curve.depths.indexOf(cell.k)]!.toFixed(2)}` : undefined;
    entry.points.push({ x: cell.k, y: mean!, lo: ciLow ?? mean, hi: ciHigh ?? mean, ...(mark ? { mark } : {}) });
    series.set(label, entry);
  }
  if (series.size === 0) return null;
  return lineChartSvg({
    xLabel: 'retrieval depth k',
    yLabel: meanAxisTitle(summaryMetric(summary).id),
    series: [...series.values()],
    references,
    // Depths are spaced evenly (10, 20, 50, 100 are roughly log-spaced already).
    xScale: 'ordinal',
    className: 'depth-chart',
    ariaLabel: `score vs k for ${model}`,
  });
}
