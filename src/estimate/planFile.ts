import { existsSync, statSync } from 'node:fs';
import type { ExperimentConfig } from '../config/experiment.js';
import { InterruptedError } from '../errors.js';
import type { Condition } from '../experiment/plan.js';
import { runFile } from '../runFiles/runDir.js';
import type { Stages } from '../experiment/stages.js';
import { computeAheadOfRun } from '../retrieval/handOff.js';
import { planRun } from './estimateRun.js';
import { readRunPlan, writeRunPlan, type RunPlan } from '../runFiles/plan.js';

/**
 * Writes `plan.json` at the start of a run, from the stages the runner built. A resumed run keeps its
 * plan; one with answers and no plan gets none (its answers would count as cached); a failing plan is
 * left out and the run goes on.
 */
export async function writePlanAtRunStart(
  runDir: string,
  config: ExperimentConfig,
  stages: Stages,
  conditions: Condition[],
  options: { signal?: AbortSignal; log?: (line: string) => void } = {},
): Promise<RunPlan | undefined> {
  const file = runFile(runDir, 'plan');
  if (existsSync(file)) return readRunPlan(runDir);
  const items = runFile(runDir, 'items');
  if (existsSync(items) && statSync(items).size > 0) return undefined;
  const plannedAt = new Date().toISOString();
  let plan: RunPlan;
  try {
    // What the plan retrieves and scores (every question, extractive refine's sentences) the run takes
    // from it rather than computing it again.
    const retrievers = [...new Set(conditions.flatMap((c) => (c.retrieverLabel ? [stages.retriever(c.retrieverLabel)] : [])))];
    plan = await computeAheadOfRun(retrievers, () => planRun(config, stages, conditions, options.signal ? { signal: options.signal } : {}));
  } catch (error) {
    if (error instanceof InterruptedError) throw new InterruptedError(`interrupted before the first answer; finish with: hisrag run --resume ${runDir}`);
    // The plan is an aid: a question it cannot plan (a retriever failing on it) fails in the run as it would have.
    options.log?.(`no plan.json: planning failed (${(error as Error).message.split('\n')[0]}); the run goes on`);
    return undefined;
  }
  const written: RunPlan = { experiment: plan.experiment, plannedAt, cells: plan.cells, total: plan.total };
  await writeRunPlan(runDir, written);
  return written;
}
