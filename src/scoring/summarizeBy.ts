import { summarizeScores, type BootstrapOptions, type ScoreSummary } from '../statistics/bootstrap.js';

/** Mean with bootstrap CI overall and per value of a key (category, type, answer type …). */
export function summarizeBy<T>(
  rows: readonly T[],
  valueOf: (row: T) => number,
  keyOf: (row: T) => string,
  options: BootstrapOptions = {},
): { all: ScoreSummary; groups: Record<string, ScoreSummary> } {
  const grouped = new Map<string, number[]>();
  for (const row of rows) {
    const key = keyOf(row);
    grouped.set(key, [...(grouped.get(key) ?? []), valueOf(row)]);
  }
  const groups: Record<string, ScoreSummary> = {};
  for (const [key, values] of [...grouped].sort(([a], [b]) => a.localeCompare(b))) groups[key] = summarizeScores(values, options);
  return { all: summarizeScores(rows.map(valueOf), options), groups };
}
