import type { RunSummary } from '../runFiles/summary.js';
import { FIRST_STAGE_PREFIX } from '../experiment/itemDetails.js';
import { lineChartSvg, type ChartSeries } from './lineChart.js';

/**
 * Retrieval recall@k before and after reranking for one model: for every reranked retriever
 * (its cells carry `firstStage.recall`), one line for the first-stage list and one for the
 * reranked list, both cut at each k; retrievers without reranking appear as they are. Null when
 * the run has no reranked retriever with gold evidence.
 */
export function rerankRecallChartSvg(summary: RunSummary, model: string, metric = 'recall'): string | null {
  const cells = summary.cells.filter((c) => c.model === model && c.k !== null && c.retrieval?.[metric] !== undefined);
  if (!cells.some((c) => c.retrieval![`${FIRST_STAGE_PREFIX}${metric}`] !== undefined)) return null;
  const series = new Map<string, ChartSeries>();
  const add = (label: string, x: number, y: number) => {
    const s = series.get(label) ?? { label, points: [] };
    if (!s.points.some((p) => p.x === x)) s.points.push({ x, y });
    series.set(label, s);
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
  return lineChartSvg({
    title: `${metric}@k before and after reranking — ${model}`,
    xLabel: 'retrieval depth k',
    yLabel: `${metric}@k`,
    series: [...series.values()],
    yDomain: [0, 1],
  });
}
