import type { ExperimentConfig } from '../config/experiment.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import type { RunSummary } from '../runFiles/summary.js';

/** An earlier run of the grid (`--estimate-from`), read by the caller so that `estimate/` reads no run directory. */
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
