import { pearson } from '../statistics/agreement.js';
import type { GroupKey } from './groupKeyValue.js';
import { groupKeyValue } from './groupKeyValue.js';
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
  const groups = new Map<string, { keys: Record<string, string | number | null>; xs: number[]; ys: number[] }>();
  for (const row of rows) {
    const keys = Object.fromEntries(by.map((k) => [k, groupKeyValue(row, k)]));
    const id = JSON.stringify(keys);
    const group = groups.get(id) ?? { keys, xs: [], ys: [] };
    groups.set(id, group);
    const x = row[a];
    const y = row[b];
    if (typeof x === 'number' && typeof y === 'number') {
      group.xs.push(x);
      group.ys.push(y);
    }
  }
  const mean = (v: number[]) => (v.length ? v.reduce((s, x) => s + x, 0) / v.length : null);
  return [...groups.values()].map((g) => {
    const r = g.xs.length >= 2 ? pearson(g.xs, g.ys) : NaN;
    return { keys: g.keys, n: g.xs.length, r: Number.isFinite(r) ? r : null, meanA: mean(g.xs), meanB: mean(g.ys) };
  });
}
