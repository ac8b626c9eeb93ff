import { z } from 'zod';
import { runFile } from './runDir.js';
import { firstVersionFile } from './versionedFile.js';

/**
 * The plan of a run (`hisrag run --dry-run`, and `plan.json` in a run directory): per model ×
 * condition and in total, what the run will cost before any call. Its own module so that the
 * results loader reads `plan.json` without the planner.
 */

/** A figure as a range: `min` = `max` where it is exact; `max` null where nothing bounds it (no `maxTokens`, no earlier run). */
export const RangeSchema = z.strictObject({ min: z.number(), max: z.number().nullable() });
export type Range = z.infer<typeof RangeSchema>;

/** What one model × condition will cost, before any call. */
export const PlanCellSchema = z.strictObject({
  model: z.string(),
  condition: z.string(),
  answers: z.number().int().nonnegative(),
  /** Calls of the run's model: exact for one-prompt conditions, the method's bounds otherwise (or an earlier run's mean). */
  generationCalls: RangeSchema,
  promptTokens: RangeSchema,
  /** The unit of `promptTokens` where it is not the CJK estimate: an exact cell of a model with a `tokenizer:` ("tokens (o200k_base encoding)"). */
  tokenUnit: z.string().optional(),
  completionTokens: RangeSchema,
  /** The page images' share of `promptTokens` (by the generator's formula); absent when the prompts show none. */
  imageTokens: RangeSchema.optional(),
  /**
   * How the figures were obtained: `exact` (every prompt built as the run will), `bounds` (each of
   * the method's calls at most its template, question, passages and earlier outputs); `earlier-run`
   * only in plans written before the earlier run's means became a separate `estimate`.
   */
  basis: z.enum(['exact', 'bounds', 'earlier-run']),
  /** Why a null `max` is unbounded, each with what would bound it (`set models[0].maxTokens to bound it`). */
  unbounded: z.array(z.string()).optional(),
  /** `--estimate-from`: the means of an earlier run of the grid, times the answers: an estimate, never a bound. */
  estimate: z
    .object({ from: z.string(), generationCalls: z.number(), promptTokens: z.number(), completionTokens: z.number(), price: z.number().optional() })
    .optional(),
  /** Judge and answer-extractor calls (LLM judge on rubric questions, LLM extractor on LongHisDoc ones). */
  judgeCalls: z.number().int().nonnegative(),
  /** Calls whose answer the response cache already holds (free); known for one-prompt conditions. */
  cachedCalls: z.number().int().nonnegative(),
  /** From the model's `price` (live rates); null without one. */
  price: RangeSchema.nullable(),
  /** A model with `batch: true`: the price at its batch rate (`price × price.batchDiscount`). */
  batchPrice: RangeSchema.optional(),
});
export type PlanCell = z.infer<typeof PlanCellSchema>;

/** A run's plan: what `hisrag run --dry-run` prints and `plan.json` holds (with its `version`). */
export const RunPlanSchema = z.strictObject({
  experiment: z.string(),
  /** When the plan was made (plan.json only: before the run's first answer). */
  plannedAt: z.string().optional(),
  cells: z.array(PlanCellSchema),
  total: PlanCellSchema.omit({ model: true, condition: true, basis: true, estimate: true }).extend({
    /** Minutes of model calls at the models' `rateLimit.requestsPerMinute` (the slowest); null without one. */
    minutesAtRateLimit: z.number().nullable(),
  }),
});
export type RunPlan = z.infer<typeof RunPlanSchema>;

/** plan.json's version: 1 since files carry one (unversioned files, from before, have the same fields). */
export const PLAN_VERSION = 1;
const planFile = firstVersionFile(RunPlanSchema);
export const PlanFileSchema = planFile.schema;

/**
 * A run directory's `plan.json` (what the run was estimated to cost before its first answer);
 * undefined for runs from before plans. A damaged or hand-edited file is an error naming the file and field.
 */
export const readRunPlan = (runDir: string): Promise<RunPlan | undefined> => planFile.read(runFile(runDir, 'plan'));

/** Writes `plan.json` at today's version. */
export const writeRunPlan = (runDir: string, plan: RunPlan): Promise<void> => planFile.write(runFile(runDir, 'plan'), plan);
