import type { CellSummary, RunSummary } from '../runFiles/summary.js';

/** Twelve colours that stay apart on a white background (Tableau 10, then two more). */
export const SERIES_PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#393b79', '#ad494a'];

/** `ircot@20` → `ircot`; `bm25/rag@2000tok` → `bm25/rag`; conditions without a depth keep their name: what one line or point series of a chart stands for. */
export function seriesLabel(cell: Pick<CellSummary, 'condition' | 'k'> & { contextTokens?: number | undefined }): string {
  const at = cell.condition.lastIndexOf('@');
  return (cell.k !== null || cell.contextTokens !== undefined) && at > 0 ? cell.condition.slice(0, at) : cell.condition;
}

/** One colour per series label, in the run's condition order, so a condition keeps its colour in every chart. */
export function seriesColors(summary: Pick<RunSummary, 'conditions' | 'cells'>): Map<string, string> {
  const depth = new Map(summary.cells.map((c) => [c.condition, c]));
  const colors = new Map<string, string>();
  for (const condition of summary.conditions) {
    const label = seriesLabel({ condition, k: depth.get(condition)?.k ?? null, contextTokens: depth.get(condition)?.contextTokens });
    if (!colors.has(label)) colors.set(label, SERIES_PALETTE[colors.size % SERIES_PALETTE.length]!);
  }
  return colors;
}
