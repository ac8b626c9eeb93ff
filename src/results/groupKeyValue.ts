import type { TidyRow } from './tidyRows.js';

/** What rows are grouped by: a TidyRow field, or `groups.<name>` for a recorded breakdown group. */
export type GroupKey = keyof TidyRow | `groups.${string}`;

/** A row's value for a grouping key: a TidyRow field, or `groups.<name>` for a recorded breakdown group. */
export function groupKeyValue(row: TidyRow, key: GroupKey): string | number | null {
  if (typeof key === 'string' && key.startsWith('groups.')) return row.groups[key.slice(7)] ?? null;
  const v = row[key as keyof TidyRow];
  return typeof v === 'string' || typeof v === 'number' ? v : v === null || v === undefined ? null : JSON.stringify(v);
}
