import { pearson } from '../statistics/agreement.js';
import { groupRows, type GroupKey } from './groupKeyValue.js';
import type { TidyRow } from './tidyRows.js';

export interface GroupCorrelation {
  keys: Record<string, string | number | null>;
  /** Rows where both fields are numbers. */
  n: number;
  /** Pearson r between the two fields; null when fewer than 2 rows or a field is constant. */
  r: number | null;
  meanA: number | null;
  meanB: number | null;
}

/**
 * Pearson r between two numeric fields of the same rows per group — e.g. retrieval recall vs
 * answer score per k: does finding the evidence go with answering well?
 */
export function correlations(rows: TidyRow[], by: GroupKey[], a: keyof TidyRow, b: keyof TidyRow): GroupCorrelation[] {
  const mean = (v: number[]) => (v.length ? v.reduce((s, x) => s + x, 0) / v.length : null);
  return groupRows(rows, by).map(({ keys, rows: list }) => {
    const both = list.filter((row) => typeof row[a] === 'number' && typeof row[b] === 'number');
    const g = { keys, xs: both.map((row) => row[a] as number), ys: both.map((row) => row[b] as number) };
    const r = g.xs.length >= 2 ? pearson(g.xs, g.ys) : NaN;
    return { keys: g.keys, n: g.xs.length, r: Number.isFinite(r) ? r : null, meanA: mean(g.xs), meanB: mean(g.ys) };
  });
}
