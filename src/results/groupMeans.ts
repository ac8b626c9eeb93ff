import { pairedBootstrap, summarizeScores } from '../statistics/bootstrap.js';
import { groupKeyValue, type GroupKey } from './groupKeyValue.js';
import type { TidyRow } from './tidyRows.js';

export type { GroupKey } from './groupKeyValue.js';

export interface GroupMean {
  /** The group's values, by key. */
  keys: Record<string, string | number | null>;
  n: number;
  /** Items that failed (excluded from the mean). */
  failed: number;
  mean: number | null;
  ciLow: number | null;
  ciHigh: number | null;
}

/**
 * Mean of a numeric field (default `score`) per group with a 95% percentile-bootstrap CI —
 * the same bootstrap as the runner's summaries. Rows whose value is null (failures, items
 * without gold evidence) are left out of the mean and counted in `failed`.
 */
export function groupMeans(
  rows: TidyRow[],
  by: GroupKey[],
  options: { value?: keyof TidyRow; resamples?: number; seed?: number } = {},
): GroupMean[] {
  const field = options.value ?? 'score';
  const groups = new Map<string, { keys: Record<string, string | number | null>; values: number[]; failed: number }>();
  for (const row of rows) {
    const keys = Object.fromEntries(by.map((k) => [k, groupKeyValue(row, k)]));
    const id = JSON.stringify(keys);
    const group = groups.get(id) ?? { keys, values: [], failed: 0 };
    const v = row[field];
    if (typeof v === 'number') group.values.push(v);
    else group.failed++;
    groups.set(id, group);
  }
  return [...groups.values()].map((g) => {
    if (g.values.length === 0) return { keys: g.keys, n: 0, failed: g.failed, mean: null, ciLow: null, ciHigh: null };
    const s = summarizeScores(g.values, { resamples: options.resamples ?? 1000, seed: options.seed ?? 0 });
    return { keys: g.keys, n: g.values.length, failed: g.failed, mean: s.mean, ciLow: s.ciLow, ciHigh: s.ciHigh };
  });
}

export interface PairedComparison {
  model: string;
  condition: string;
  baseline: string;
  n: number;
  meanDiff: number;
  ciLow: number;
  ciHigh: number;
  sharePositive: number;
}

/**
 * Paired differences condition − baseline per model, on the questions both scored (paired
 * bootstrap). `baseline` defaults to closed-book.
 */
export function pairedDifferences(
  rows: TidyRow[],
  options: { baseline?: string; resamples?: number; seed?: number } = {},
): PairedComparison[] {
  const baseline = options.baseline ?? 'closed-book';
  const out: PairedComparison[] = [];
  const models = [...new Set(rows.map((r) => r.model))];
  for (const model of models) {
    const mine = rows.filter((r) => r.model === model && r.score !== null);
    const base = new Map(mine.filter((r) => r.condition === baseline).map((r) => [`${r.run}|${r.benchmark}:${r.itemId}`, r.score!]));
    for (const condition of [...new Set(mine.map((r) => r.condition))]) {
      if (condition === baseline) continue;
      const a: number[] = [];
      const b: number[] = [];
      for (const r of mine.filter((x) => x.condition === condition)) {
        const s = base.get(`${r.run}|${r.benchmark}:${r.itemId}`);
        if (s === undefined) continue;
        a.push(r.score!);
        b.push(s);
      }
      if (!a.length) continue;
      const d = pairedBootstrap(a, b, { resamples: options.resamples ?? 1000, seed: options.seed ?? 0 });
      out.push({ model, condition, baseline, n: d.n, meanDiff: d.meanDiff, ciLow: d.ciLow, ciHigh: d.ciHigh, sharePositive: d.sharePositive });
    }
  }
  return out;
}
