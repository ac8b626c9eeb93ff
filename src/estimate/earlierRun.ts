import type { ExperimentConfig } from '../config/experiment.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import type { RunSummary } from '../runFiles/summary.js';

/**
 * An earlier run of the same grid whose figures a plan or a power estimate reuses (`--estimate-from`).
 * The caller reads it (the use cases in `app/`, through the results API), so that `estimate/` reads
 * no run directory itself.
 */
export interface EarlierRun {
  /** The run directory as the user named it. */
  from: string;
  config: ExperimentConfig;
  records: RunItemRecord[];
  summary: RunSummary;
  /** Model labels and condition names in the run's own order. */
  models: string[];
  conditions: string[];
}
