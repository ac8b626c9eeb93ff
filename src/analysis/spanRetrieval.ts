import { SPAN_METRICS } from '../scoring/spanMetrics.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import type { CellSummary } from '../runFiles/summary.js';
import { conditionMean, salts } from '../statistics/run.js';
import { itemKeyOf, type RunStatistics } from './observations.js';

/** A cell's span metrics as means over its questions with the score's intervals; nothing when no record has one. */
export function spanRetrievalOf(model: string, condition: string, records: readonly RunItemRecord[], stats: RunStatistics): CellSummary['spanRetrieval'] {
  const out: NonNullable<CellSummary['spanRetrieval']> = {};
  for (const metric of SPAN_METRICS) {
    const observations = records.flatMap((r) => {
      const value = r.retrievalMetrics?.[metric];
      return value === undefined ? [] : [{ itemKey: itemKeyOf(r), condition, sample: r.sample ?? 0, score: value, ...(stats.clusterKey ? { cluster: stats.clusterKey(r) } : {}) }];
    });
    if (observations.length > 0) out[metric] = conditionMean(observations, stats.settings, salts.retrievalMetric(model, condition, metric));
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
