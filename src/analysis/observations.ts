import type { Observation, StatisticsSettings } from '../statistics/run.js';
import type { Reducer } from '../statistics/samples.js';
import { clusterFieldOf, clusterKeyOf } from '../experiment/clusterKey.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';

export const isScored = (r: RunItemRecord) => r.score.status === 'scored' && r.score.score !== null;
export const itemKeyOf = (r: Pick<RunItemRecord, 'benchmark' | 'itemId'>) => `${r.benchmark}:${r.itemId}`;

/** What a run's statistics are decided from: its records and `scoring` settings (cluster, reducer), resamples and seed. */
export interface RunStatisticsOptions {
  /** `scoring.cluster` (`none`: over questions); default the LongHisDoc volume where records carry one. */
  cluster?: string;
  reducer?: Reducer;
  resamples: number;
  seed: number;
}

/** A run's statistics settings, decided once, and the cluster key of each of its records (null: not clustered). */
export interface RunStatistics {
  settings: StatisticsSettings;
  clusterKey: ((record: RunItemRecord) => string) | null;
  /** A scored record as the statistics take it. */
  observe: (record: RunItemRecord) => Observation;
  /** Scored records as observations. */
  observations: (records: readonly RunItemRecord[]) => Observation[];
}

/** The settings every figure of a run is computed under, from its records and settings. */
export function runStatistics(records: readonly RunItemRecord[], options: RunStatisticsOptions): RunStatistics {
  const field = clusterFieldOf(records as RunItemRecord[], options.cluster);
  const clusterKey = field ? clusterKeyOf(field) : null;
  const settings: StatisticsSettings = {
    cluster: field,
    repeatedSamples: records.some((r) => (r.sample ?? 0) > 0),
    reducer: options.reducer ?? 'mean',
    seed: options.seed,
    resamples: options.resamples,
    confidence: 0.95,
  };
  const observe = (r: RunItemRecord): Observation => ({
    itemKey: itemKeyOf(r),
    condition: r.condition,
    sample: r.sample ?? 0,
    score: r.score.score!,
    ...(clusterKey ? { cluster: clusterKey(r) } : {}),
  });
  return { settings, clusterKey, observe, observations: (list) => list.filter(isScored).map(observe) };
}
