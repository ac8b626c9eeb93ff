import type { ExperimentConfig } from '../config/experiment.js';
import { strategySpecs } from './plan.js';
import { redactSecrets } from './redact.js';
import type { CellMethod } from '../runFiles/summary.js';

/** Each `strategies:` entry's method, by the entry's label (what records and cells call `strategy`). */
export function methodsByStrategy(config: ExperimentConfig): Record<string, CellMethod> {
  return Object.fromEntries(
    strategySpecs(config).map(({ label, spec }) => {
      const { name, ...params } = spec;
      return [label, { name, params: redactSecrets(params) }];
    }),
  );
}
