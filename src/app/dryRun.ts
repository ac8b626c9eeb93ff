import { InputError } from '../errors.js';
import type { ExperimentConfig } from '../config/experiment.js';
import { assertConfiguredInputsExist } from '../config/inputFiles.js';
import type { EarlierRun } from '../estimate/earlierRun.js';
import { planRun } from '../estimate/estimateRun.js';
import type { RunPlan } from '../runFiles/plan.js';
import { checkPowerRequest, powerOfStages, type PowerPlan, type PowerRequest } from '../estimate/power.js';
import { planConditions, withResolvedBaseline, type Condition } from '../experiment/plan.js';
import { buildStages, type Stages } from '../experiment/stages.js';
import { prepareArtefacts } from './prepare.js';
import { QUERY_VECTOR_CACHE } from '../retrieval/queryVectorCache.js';

/** What a dry run takes: an earlier run whose means and variances it reuses (`--estimate-from`), and a stop signal. */
export interface DryRunOptions {
  estimateFrom?: string;
  /** Checked between cells: a plan of a large grid (every prompt built) stops at the next cell. */
  signal?: AbortSignal;
  /** `--frozen`: a missing or stale artefact is refused, not built, and the query vector cache is only read. */
  frozen?: boolean;
}

/** `hisrag run --dry-run`: prepares the artefacts as a run would and plans the stages (`planRun`); no model is called. */
export async function estimateRun(config: ExperimentConfig, options: DryRunOptions & { log?: (line: string) => void } = {}): Promise<RunPlan> {
  if (!config.models) throw new InputError('a retrieval-only study (no `models:`) calls no model and costs nothing to plan: run it with `hisrag run`');
  return withPlannedStages(config, options, async (stages, conditions, resolved) =>
    planRun(resolved, stages, conditions, planOptions(await readEarlierRun(options.estimateFrom), options.signal)),
  );
}

/** `hisrag power`: the grid's power figures, from the stages a run would build (no model is called). */
export async function estimatePower(config: ExperimentConfig, request: PowerRequest): Promise<PowerPlan> {
  checkPowerRequest(request);
  return withPlannedStages(config, {}, async (stages, conditions, resolved) => powerOfStages(resolved, stages, conditions, request, await readEarlierRun(request.estimateFrom)));
}

/** `hisrag run --dry-run`: the plan and the power figures from one build of the stages. */
export async function planWithPower(config: ExperimentConfig, options: DryRunOptions): Promise<{ plan: RunPlan; power: PowerPlan }> {
  return withPlannedStages(config, options, async (stages, conditions, resolved) => {
    const earlier = await readEarlierRun(options.estimateFrom);
    return {
      plan: await planRun(resolved, stages, conditions, planOptions(earlier, options.signal)),
      power: await powerOfStages(resolved, stages, conditions, {}, earlier),
    };
  });
}

const planOptions = (earlier: EarlierRun | undefined, signal: AbortSignal | undefined) => ({ ...(earlier ? { earlier } : {}), ...(signal ? { signal } : {}) });

/**
 * Resolves the baseline, prepares the artefacts and builds the stages as a run would, hands them, the
 * grid's conditions and the resolved config to `use`, and closes them (the dry run's plan and its power
 * figures share one build). The questions' query vectors are kept in QUERY_VECTOR_CACHE: planning the
 * same questions again loads no embedding model.
 */
async function withPlannedStages<T>(
  written: ExperimentConfig,
  { log, frozen }: { log?: (line: string) => void; frozen?: boolean },
  use: (stages: Stages, conditions: Condition[], config: ExperimentConfig) => Promise<T>,
): Promise<T> {
  const { config } = await withResolvedBaseline(written);
  assertConfiguredInputsExist(config);
  await prepareArtefacts(config, { log: log ?? (() => {}), progress: false, ...(frozen ? { frozen } : {}) });
  const stages = await buildStages(config, { queryVectors: { file: QUERY_VECTOR_CACHE, ...(frozen ? { readOnly: true } : {}) } });
  try {
    return await use(stages, planConditions(config, (spec, path) => stages.method(spec, path)), config);
  } finally {
    await stages.close();
  }
}

/** The earlier run `--estimate-from` names, read through the results API (as a notebook reads it). */
async function readEarlierRun(from: string | undefined): Promise<EarlierRun | undefined> {
  if (!from) return undefined;
  const { loadRun } = await import('../results/loadRun.js');
  const run = await loadRun(from);
  return { from, config: run.config, records: run.records, summary: run.summary, models: run.models, conditions: run.conditions };
}
