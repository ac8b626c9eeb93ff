import { meanAxisTitle, summaryMetric } from '../scoring/metrics.js';
import type { CellSummary, RunSummary } from '../runFiles/summary.js';
import { lineChartSvg, type ChartSeries } from './lineChart.js';
import { seriesColors, seriesLabel } from './seriesColors.js';

/**
 * Score against cost for one model: each condition a point with its 95% CI as an error bar, at
 * its mean cost per answer — the price when every condition has one (the models' `price`), else
 * tokens (prompt + completion) — on a log axis, since methods differ in cost by orders of
 * magnitude. The points of one method at its depths k are joined. `null` without costs.
 */
export function costChartSvg(summary: RunSummary, model: string): string | null {
  const cells = summary.cells.filter((c) => c.model === model && c.score.mean !== null && c.cost);
  if (cells.length === 0) return null;
  const byPrice = cells.every((c) => c.cost!.price !== null && c.cost!.price > 0);
  const costOf = (c: CellSummary) => (byPrice ? c.cost!.price! : Math.max(1, c.cost!.promptTokens + c.cost!.completionTokens));
  const series = new Map<string, ChartSeries>();
  const colors = seriesColors(summary);
  for (const cell of cells) {
    const label = seriesLabel(cell);
    const entry = series.get(label) ?? { label, points: [], color: colors.get(label)! };
    entry.points.push({ x: costOf(cell), y: cell.score.mean!, lo: cell.score.ciLow ?? cell.score.mean, hi: cell.score.ciHigh ?? cell.score.mean });
    series.set(label, entry);
  }
  const estimated = cells.some((c) => c.cost!.estimatedTokens);
  return lineChartSvg({
    xLabel: byPrice ? 'price per answer (log scale)' : `tokens per answer, prompt + completion (log scale${estimated ? '; estimated where the endpoint reported none' : ''})`,
    yLabel: meanAxisTitle(summaryMetric(summary).id),
    series: [...series.values()],
    xScale: 'log',
    errorBars: true,
    className: 'cost-chart',
    ariaLabel: `score vs cost for ${model}`,
  });
}
