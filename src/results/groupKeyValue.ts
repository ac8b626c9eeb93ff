import type { TidyRow } from './tidyRows.js';
import { groupBy } from '../diagnostics/groupBy.js';

/** What rows are grouped by: a TidyRow field, or `groups.<name>` for a recorded breakdown group. */
export type GroupKey = keyof TidyRow | `groups.${string}`;

/** A row's value for a grouping key: a TidyRow field, or `groups.<name>` for a recorded breakdown group. */
export function groupKeyValue(row: TidyRow, key: GroupKey): string | number | null {
  if (typeof key === 'string' && key.startsWith('groups.')) return row.groups[key.slice(7)] ?? null;
  const v = row[key as keyof TidyRow];
  return typeof v === 'string' || typeof v === 'number' ? v : v === null || v === undefined ? null : JSON.stringify(v);
}

/** Rows grouped by their values of `by`, in order of first appearance; `id` names the group's values. */
export function groupRows(rows: TidyRow[], by: GroupKey[]): { id: string; keys: Record<string, string | number | null>; rows: TidyRow[] }[] {
  const keysOf = (row: TidyRow) => Object.fromEntries(by.map((k) => [k, groupKeyValue(row, k)]));
  return [...groupBy(rows, (row) => JSON.stringify(keysOf(row)))].map(([id, list]) => ({ id, keys: keysOf(list[0]!), rows: list }));
}
