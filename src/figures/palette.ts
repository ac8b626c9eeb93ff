import type { CellSummary } from '../runFiles/summary.js';

/** Twelve colours that stay apart on a white background (Tableau 10, then two more). */
export const SERIES_PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#393b79', '#ad494a'];

/** `ircot@20` → `ircot`; `bm25/rag@2000tok` → `bm25/rag`; conditions without a depth keep their name: a depth curve's name in the report's tables, and a figure's series where no factor tells it apart (`figureModel.ts`). */
export function seriesLabel(cell: Pick<CellSummary, 'condition' | 'k'> & { contextTokens?: number | undefined }): string {
  const at = cell.condition.lastIndexOf('@');
  return (cell.k !== null || cell.contextTokens !== undefined) && at > 0 ? cell.condition.slice(0, at) : cell.condition;
}
