import { z } from 'zod';
import type { ExperimentConfig } from '../config/experiment.js';
import { strategySpecs } from './plan.js';
import { redactSecrets } from './redact.js';

/**
 * The method that produced a summary cell: its registry name (`rag`, `ircot`, `http`,
 * `langchain-runnable`, `outputs` …) and the parameters of its `strategies:` entry (label and
 * depths left out, secrets redacted), so cells can be grouped and filtered by method whatever
 * their labels.
 */
export const CellMethodSchema = z.object({
  name: z.string(),
  params: z.record(z.string(), z.unknown()),
});
export type CellMethod = z.infer<typeof CellMethodSchema>;

/** Each `strategies:` entry's method, by the entry's label (what records and cells call `strategy`). */
export function methodsByStrategy(config: ExperimentConfig): Record<string, CellMethod> {
  return Object.fromEntries(
    strategySpecs(config).map(({ label, spec }) => {
      const { name, ...params } = spec;
      return [label, { name, params: redactSecrets(params) }];
    }),
  );
}
