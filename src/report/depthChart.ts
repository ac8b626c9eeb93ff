import type { RunSummary } from '../experiment/summary.js';
import { lineChartSvg, type ChartReference, type ChartSeries } from './lineChart.js';
import { seriesColors, seriesLabel } from './seriesColors.js';

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
    entry.points.push({ x: cell.k, y: mean!, lo: ciLow ?? mean, hi: ciHigh ?? mean });
    series.set(label, entry);
  }
  if (series.size === 0) return null;
  return lineChartSvg({
    xLabel: 'retrieval depth k',
    yLabel: 'mean score (95% CI)',
    series: [...series.values()],
    references,
    // Depths are spaced evenly (10, 20, 50, 100 are roughly log-spaced already).
    xScale: 'ordinal',
    className: 'depth-chart',
    ariaLabel: `score vs k for ${model}`,
  });
}
