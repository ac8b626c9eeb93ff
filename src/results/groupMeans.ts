import { adjustFamily, conditionMean, pairedDifference, salts, type Observation, type StatisticsSettings } from '../statistics/run.js';
import type { Reducer } from '../statistics/samples.js';
import { groupRows, type GroupKey } from './groupKeyValue.js';
import type { TidyRow } from './tidyRows.js';


export interface GroupMean {
  /** The group's values, by key. */
  keys: Record<string, string | number | null>;
  /** Questions (a question's repeated samples reduced to one score). */
  n: number;
  /** Items that failed (excluded from the mean). */
  failed: number;
  mean: number | null;
  ciLow: number | null;
  ciHigh: number | null;
}

/** The resampling the run's own summary uses: pass its `scoring.bootstrapResamples` and `seed` and the figures are the summary's. */
export interface ResamplingOptions {
  resamples?: number;
  seed?: number;
  /** `scoring.reducer` of the run (default mean). */
  reducer?: Reducer;
}

/** The statistics settings of a set of rows: clustered when they carry cluster keys, two-stage when a question was answered more than once. */
function settingsOf(rows: readonly TidyRow[], options: ResamplingOptions): StatisticsSettings {
  return {
    cluster: rows.some((r) => r.cluster !== null) ? 'cluster' : null,
    repeatedSamples: rows.some((r) => r.sample > 0),
    reducer: options.reducer ?? 'mean',
    seed: options.seed ?? 0,
    resamples: options.resamples ?? 1000,
    confidence: 0.95,
  };
}

/** A row as an observation: a question is its run, model, condition and item (so pooled groups never merge two conditions' answers). */
const observe = (row: TidyRow, score: number, within: string): Observation => ({
  itemKey: `${within}${row.benchmark}:${row.itemId}`,
  condition: row.condition,
  sample: row.sample,
  score,
  ...(row.cluster !== null ? { cluster: row.cluster } : {}),
});

/**
 * Mean of a numeric field (default `score`) per group with its 95% interval from the statistics
 * module, under the rows' run settings (clusters, repeated samples): a group that is one run's
 * model × condition gets that cell's seed, so with the run's resamples and seed its interval is the
 * summary's. Rows whose value is null (failures, items without gold evidence) are left out of the
 * mean and counted in `failed`.
 */
export function groupMeans(rows: TidyRow[], by: GroupKey[], options: ResamplingOptions & { value?: keyof TidyRow } = {}): GroupMean[] {
  const field = options.value ?? 'score';
  return groupRows(rows, by).map(({ id, keys, rows: all }) => {
    const g = { keys, rows: all.filter((r) => typeof r[field] === 'number'), failed: all.filter((r) => typeof r[field] !== 'number').length };
    if (g.rows.length === 0) return { keys: g.keys, n: 0, failed: g.failed, mean: null, ciLow: null, ciHigh: null };
    const cells = new Set(g.rows.map((r) => `${r.run}\u0000${r.model}\u0000${r.condition}`));
    const first = g.rows[0]!;
    const salt = cells.size === 1 ? salts.cell(first.model, first.condition) : `group|${id}`;
    const within = (r: TidyRow) => (cells.size === 1 ? '' : `${r.run}\u0000${r.model}\u0000${r.condition}\u0000`);
    const s = conditionMean(
      g.rows.map((r) => observe(r, r[field] as number, within(r))),
      settingsOf(g.rows, options),
      salt,
    );
    return { keys: g.keys, n: s.n, failed: g.failed, mean: s.mean, ciLow: s.ciLow, ciHigh: s.ciHigh };
  });
}

export interface PairedComparison {
  run: string;
  model: string;
  condition: string;
  baseline: string;
  /** Questions both scored (samples reduced). */
  n: number;
  meanDiff: number;
  ciLow: number;
  ciHigh: number;
  sharePositive: number;
  /** Sign-flip p, and p adjusted by Holm and Benjamini–Hochberg over every comparison returned. */
  p: number;
  pHolm: number;
  pBH: number;
}

/**
 * Paired differences condition − baseline per run and model, on the questions both scored, from the
 * statistics module under each run's settings (clusters, repeated samples reduced by `reducer`):
 * with the run's resamples, seed and baseline, the interval, p and adjusted p are the summary's.
 * `baseline` defaults to closed-book.
 */
export function pairedDifferences(rows: TidyRow[], options: ResamplingOptions & { baseline?: string } = {}): PairedComparison[] {
  const baseline = options.baseline ?? 'closed-book';
  const out: Omit<PairedComparison, 'pHolm' | 'pBH'>[] = [];
  for (const run of [...new Set(rows.map((r) => r.run))]) {
    const ofRun = rows.filter((r) => r.run === run);
    const settings = settingsOf(ofRun, options);
    for (const model of [...new Set(ofRun.map((r) => r.model))]) {
      const mine = ofRun.filter((r) => r.model === model && r.score !== null);
      const observations = (condition: string) => mine.filter((r) => r.condition === condition).map((r) => observe(r, r.score!, ''));
      const against = observations(baseline);
      for (const condition of [...new Set(mine.map((r) => r.condition))]) {
        if (condition === baseline) continue;
        const d = pairedDifference(observations(condition), against, settings, salts.paired(model, condition, baseline, baseline));
        if (d.n === 0) continue;
        out.push({ run, model, condition, baseline, n: d.n, meanDiff: d.meanDiff!, ciLow: d.ciLow!, ciHigh: d.ciHigh!, sharePositive: d.sharePositive!, p: d.p! });
      }
    }
  }
  const { holm, bh } = adjustFamily(out.map((d) => d.p));
  return out.map((d, i) => ({ ...d, pHolm: holm[i]!, pBH: bh[i]! }));
}
