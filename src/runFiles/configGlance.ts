import { z } from 'zod';

/**
 * A partial view of a run's config.json: what the viewer's run list and a run's page need, read
 * without the experiment schema (config/experiment.ts, whose module loads every registered
 * component's: seconds). That schema is the file's contract; here a field absent or of another type
 * reads as its default there, until the full check. `reducers` are statistics/samples.ts's REDUCERS
 * (passed in: the contract imports nothing above the foundations).
 */
function configGlanceSchema<R extends string>(reducers: readonly [R, ...R[]]) {
  return z.object({
    name: z.string().catch(''),
    seed: z.number().catch(42),
    benchmarks: z.array(z.looseObject({ name: z.string().optional() })).catch([]),
    scoring: z
      .object({
        baseline: z.string().catch('closed-book'),
        bootstrapResamples: z.number().catch(1000),
        reducer: z.enum(reducers).optional().catch(undefined),
      })
      .catch({ baseline: 'closed-book', bootstrapResamples: 1000 }),
  });
}
export type ConfigGlance<R extends string> = z.infer<ReturnType<typeof configGlanceSchema<R>>>;

/** config.json's glance from its parsed JSON (never throws: every field has its default). */
export function readConfigGlance<R extends string>(raw: Record<string, unknown>, reducers: readonly [R, ...R[]]): ConfigGlance<R> {
  // `benchmark: {…}` is the schema's shorthand for a list of one.
  return configGlanceSchema(reducers).parse({ ...raw, benchmarks: raw.benchmarks ?? (raw.benchmark !== undefined ? [raw.benchmark] : undefined) });
}
