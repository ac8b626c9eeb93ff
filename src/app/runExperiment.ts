import type { ExperimentConfig } from '../config/experiment.js';
import { assertConfiguredInputsExist } from '../config/inputFiles.js';
import { InputError, InterruptedError, ServiceUnavailableError } from '../errors.js';
import { writePlanAtRunStart } from '../estimate/planFile.js';
import { buildRunManifest } from '../experiment/manifest.js';
import { writeRunManifest, type RunManifest } from '../runFiles/manifest.js';
import { planConditions, withResolvedBaseline, type Condition } from '../experiment/plan.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { ensureFileExists } from '../experiment/runDirectory.js';
import { readRunRecords, runFile } from '../runFiles/runDir.js';
import { buildStages, type Stages } from '../experiment/stages.js';
import type { RunSummary } from '../runFiles/summary.js';
import { collectRound, createTaskContext, gridTasks, type Task, type TaskContext } from '../experiment/taskContext.js';
import { answerInBatches } from '../batch/batchRounds.js';
import type { HeldLock } from '../runFiles/lockFile.js';
import { answerTasks, type AnsweringOutcome } from './answerTasks.js';
import { openRunDirectory, withHeldLock } from './openRun.js';
import { prepareArtefacts } from './prepare.js';
import { failureLines, runEndLines, summarizeRecords, writeRunOutputs } from './runOutputs.js';
import { importConfiguredLabels } from './labelExchange.js';
import { readLabelInclusion, readRunLabels } from '../runFiles/labelFiles.js';
import { rm } from 'node:fs/promises';

export interface RunOptions {
  /** A validated config (from `loadExperimentConfig`), for a new run. */
  config?: ExperimentConfig;
  configFile?: string;
  /** Resume this run directory instead (its stored config is used). */
  resumeDir?: string;
  runId?: string;
  /** Print progress and the final table. */
  log?: (line: string) => void;
  progress?: boolean;
  /** Stops the run at its next safe point (prepare, start-up, answering, summary); resumable. */
  signal?: AbortSignal;
  /** On resume, answer the items recorded as failed again (the new record replaces the old). Default true. */
  retryFailed?: boolean;
  /** Build nothing: refuse (exit 2) when a prepared artefact is missing or out of date (`--frozen`). */
  frozen?: boolean;
  /** Print the summary table at the end (default true); off when the caller prints a fuller one (a diagnosed run's). */
  printTable?: boolean;
}

export interface RunResult {
  runDir: string;
  summary: RunSummary;
  /** Items answered in this invocation (0 when everything was already done). */
  newItems: number;
  /** The user stopped the run (signal) before every item had a record. */
  interrupted: boolean;
}

/** The line that tells how to finish a run that stopped early. */
function resumeHint(runDir: string, records: RunItemRecord[], total: number): string {
  const failed = records.filter((r) => r.score.status !== 'scored').length;
  return `${records.length}/${total} answers are saved in ${runDir} (${records.length - failed} scored, ${failed} failed, answered again on resume); finish with: hisrag run --resume ${runDir}`;
}

/**
 * Runs (or resumes) an experiment grid: models × conditions × benchmark items. Every finished
 * item is appended to items.jsonl at once, so an interrupted run — Ctrl-C or kill -9 —
 * resumes with `--resume` and neither loses nor repeats an answer. Failures (an endpoint that
 * still fails after its retries, a judge whose output cannot be parsed) are recorded with
 * their reason and excluded from means, never scored 0.
 */
export async function runExperiment(options: RunOptions): Promise<RunResult> {
  // One writer per run directory: held from before the run's first file is read to its last write.
  return withHeldLock((holdLock) => runHoldingLock(options, holdLock));
}

/** What the steps of one run share once its stages are built. */
interface RunInProgress {
  options: RunOptions;
  log: (line: string) => void;
  config: ExperimentConfig;
  runDir: string;
  stages: Stages;
  conditions: Condition[];
}

/** The config with its baseline resolved, once its benchmark data and label files (labels are read only once every answer is there) are known to exist. */
async function checkedConfig(config: ExperimentConfig): Promise<Awaited<ReturnType<typeof withResolvedBaseline>>> {
  const resolved = await withResolvedBaseline(config);
  assertConfiguredInputsExist(resolved.config);
  return resolved;
}

async function runHoldingLock(options: RunOptions, holdLock: (lock: HeldLock) => void): Promise<RunResult> {
  const log = options.log ?? (() => {});
  // A new run's baseline is resolved and its input files checked before its folder exists: a refusal leaves nothing behind.
  const fresh = options.config ? await checkedConfig(options.config) : undefined;
  const opened = await openRunDirectory({ ...options, ...(fresh ? { config: fresh.config } : {}) }, log, holdLock);
  const { runDir, previousManifest } = opened;
  // A resumed run's stored config the same way (runs stored before resolution kept the baseline as written).
  const resolved = fresh ?? (await checkedConfig(opened.config));
  const config = resolved.config;
  if (resolved.line) log(resolved.line);
  // Before the first answer there is nothing to count yet; the run directory already resumes.
  const stopIfInterrupted = () => {
    if (options.signal?.aborted) throw new InterruptedError(`interrupted before the first answer; finish with: hisrag run --resume ${runDir}`);
  };
  // Refused input (a stale artefact under --frozen, a bad benchmark file) leaves no new run folder for the viewer to list as interrupted.
  const refused = async (error: unknown) => {
    if (!options.resumeDir && error instanceof InputError) await rm(runDir, { recursive: true, force: true });
    return error;
  };
  try {
    await prepareArtefacts(config, { log, progress: options.progress ?? false, signal: options.signal, frozen: options.frozen ?? false });
  } catch (error) {
    stopIfInterrupted();
    throw await refused(error);
  }
  stopIfInterrupted();
  const stages = await buildStages(config).catch(async (error: unknown) => {
    throw await refused(error);
  });
  try {
    stopIfInterrupted();
    const conditions = planConditions(config, (spec, path) => stages.method(spec, path));
    const run: RunInProgress = { options, log, config, runDir, stages, conditions };
    const startedAt = new Date().toISOString();
    const manifest = await buildRunManifest({ config, configFile: options.configFile, runDir, stages, startedAt, conditions: conditions.map((c) => c.name), previous: previousManifest });
    await writeRunManifest(runDir, manifest);
    // plan.json: the dry run's plan on these stages, before the first answer (kept on resume; no model called).
    const plan = await writePlanAtRunStart(runDir, config, stages, conditions, { ...(options.signal ? { signal: options.signal } : {}), log });
    const grid = await gridStillToAnswer(run);
    await answerThroughBatches(run, grid.tasks, grid.context);
    const answering = await answerTasks({ runDir, config, stages, conditions, ...grid, signal: options.signal, progress: options.progress ?? false });
    return await finishRun(run, manifest, plan, grid.total, answering);
  } finally {
    // Methods, retrievers and scorers release what they hold (a method's own: see buildStages), also after an interrupt or an error.
    await stages.close();
  }
}

/** The grid's tasks that have no record yet (failed ones too, unless told not to retry), and the line that says so. */
async function gridStillToAnswer(run: RunInProgress) {
  const { stages, conditions, runDir, config, log } = run;
  await ensureFileExists(runFile(runDir, 'items'));
  const existing = await readRunRecords(runDir, { repair: true });
  // Failed items are answered again on resume (unless told not to); the new record wins.
  const retryFailed = run.options.retryFailed ?? true;
  const done = new Set(existing.filter((r) => !retryFailed || r.score.status === 'scored').map((r) => r.key));
  const retrying = existing.length - done.size;
  const tasks = gridTasks(stages, conditions, done);
  const context = createTaskContext(stages, conditions, tasks, run.options.signal);
  const samplesOf = stages.models.map((m) => m.samples);
  const answersPerItem = samplesOf.reduce((n, s) => n + s, 0);
  const items = stages.items;
  const total = answersPerItem * conditions.length * items.length;
  const sampleNote = samplesOf.some((s) => s > 1) ? ` × ${new Set(samplesOf).size === 1 ? samplesOf[0] : samplesOf.join('/')} samples` : '';
  log(
    `hisrag run ${config.name}: ${items.length} questions × ${conditions.length} conditions × ${stages.models.length} models${sampleNote} = ${total} answers` +
      (existing.length ? ` (${done.size} already done, ${tasks.length} to go${retrying ? `, of which ${retrying} failed before and are retried` : ''})` : ''),
  );
  log(`run directory: ${runDir}`);
  for (const line of stages.describeLines()) log(line);
  return { existing, done, tasks, context, answersPerItem, total };
}

/**
 * Batch mode (models, judge or extractor with `batch`): their calls are answered through batch APIs
 * round by round first — each round runs every task with the queues collecting and records nothing —
 * so the answering that follows finds every call in the response cache.
 */
async function answerThroughBatches(run: RunInProgress, tasks: Task[], context: TaskContext): Promise<void> {
  const { stages, config, runDir, log, options } = run;
  const queues = stages.batchQueues();
  if (queues.length === 0 || tasks.length === 0) return;
  await answerInBatches({
    queues,
    runDir,
    log,
    signal: options.signal,
    collect: (round) => collectRound({ stages, config, tasks, context, label: `batch round ${round}: answers gone through`, progress: options.progress ?? false }),
  });
}

/**
 * Closes the manifest (complete or why it stopped), then — also for a run that stopped early — writes
 * the summary and report of what is done and prints the table. A fatal error is thrown after the
 * manifest, with the line that resumes the run.
 */
async function finishRun(run: RunInProgress, manifest: RunManifest, plan: Awaited<ReturnType<typeof writePlanAtRunStart>>, total: number, answering: AnsweringOutcome): Promise<RunResult> {
  const { runDir, config, stages, conditions, log } = run;
  const { fatal, stopReason } = answering;
  const userStopped = run.options.signal?.aborted === true;
  const records = await readRunRecords(runDir);
  const complete = records.length >= total && !userStopped && !fatal && !stopReason;
  const finalManifest = closedManifest(manifest, records, total, complete, stopReason ?? (fatal ? (fatal as Error).message : undefined));
  await writeRunManifest(runDir, finalManifest);
  if (fatal) {
    if (fatal instanceof Error) fatal.message += `\n(${resumeHint(runDir, records, total)})`;
    throw fatal;
  }
  // Labels name answers by key: imported once every answer is there.
  if (complete) for (const line of await importConfiguredLabels(runDir, config)) log(line);
  const summary = summarizeRecords(config, records, stages.models.map((m) => m.label), conditions.map((c) => c.name), await readRunLabels(runDir), await readLabelInclusion(runDir));
  const reportPath = await writeRunOutputs(runDir, { summary, records, manifest: finalManifest, plan });
  for (const line of runEndLines(config, summary, records, reportPath, run.options.printTable ?? true)) log(line);
  if (stopReason) throw new ServiceUnavailableError(`${stopReason}\n(${resumeHint(runDir, records, total)})`);
  if (!complete) log(`run incomplete: ${resumeHint(runDir, records, total)}`);
  // A run with answers but not one scored measured nothing: an exit code of 0 would pass it off as a result.
  if (records.length > 0 && records.every((r) => r.score.status !== 'scored')) {
    throw new ServiceUnavailableError(`no answer could be scored: all ${records.length} answers failed (${failureLines(records, 3)[0]})\n(${resumeHint(runDir, records, total)})`);
  }
  return { runDir, summary, newItems: answering.answered, interrupted: userStopped || records.length < total };
}

/** The manifest as the run leaves it: finished or not, the answers counted, and why it stopped. */
function closedManifest(manifest: RunManifest, records: RunItemRecord[], total: number, complete: boolean, stoppedBecause: string | undefined): RunManifest {
  return {
    ...manifest,
    finishedAt: complete ? new Date().toISOString() : null,
    complete,
    answers: { done: records.length, total, failed: records.filter((r) => r.score.status !== 'scored').length },
    ...(stoppedBecause !== undefined ? { stoppedBecause } : {}),
  };
}
