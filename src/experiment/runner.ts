import { existsSync } from 'node:fs';
import { recordedMessageOf } from '../prompting/messageContent.js';
import { mkdir, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import pLimit from 'p-limit';
import type { ExperimentConfig } from '../config/experiment.js';
import { validateExperimentConfig } from '../config/load.js';
import { InputError, InterruptedError, ServiceUnavailableError } from '../errors.js';
import { atomicWrite, atomicWriteJson, removeStaleTempFiles } from '../io/atomicWrite.js';
import { JsonlAppender } from '../io/jsonl.js';
import { createProgress } from '../progress/progress.js';
import { renderReportHtml } from '../report/html.js';
import { summaryCsv } from '../report/csv.js';
import { summaryTable } from '../report/table.js';
import { stripThink } from '../scoring/stripThink.js';
import { buildStages, type Stages } from './stages.js';
import { planConditions } from './plan.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { redactSecrets } from './redact.js';
import { buildRunManifest } from './manifest.js';
import { prepareArtefacts } from './prepare.js';
import { writePlanAtRunStart } from '../estimate/planFile.js';
import { assertRunDirectory, readRunRecords, runFile } from '../runFiles/runDir.js';
import { ensureFileExists } from './runDirectory.js';
import { acquireRunLock } from './runLock.js';
import { methodsByStrategy } from './cellMethod.js';
import type { HeldLock } from '../io/lockFile.js';
import { summarizeRun } from './summary.js';
import { type RunSummary } from '../runFiles/summary.js';
import { loadRun } from '../results/loadRun.js';
import { itemGroups, methodRetrievalMetrics, recordedChunks } from './itemDetails.js';
import { MethodStepError } from '../methods/stepError.js';
import type { MethodOutcome } from '../methods/types.js';
import { withExternalCost } from '../methods/external/outcome.js';
import { answerInBatches } from '../batch/batchRounds.js';
import { collectRound, createTaskContext, gridTasks, type Task } from './taskContext.js';
import { readRunManifest, writeRunManifest, type RunManifest, type StoredRunManifest } from '../runFiles/manifest.js';
import { writeRunSummary } from '../runFiles/summaryFile.js';

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
  /**
   * On resume, answer again the items recorded as failed (generation or judge failures); the
   * new record replaces the old one. Default true.
   */
  retryFailed?: boolean;
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
function resumeHint(runDir: string, done: number, total: number): string {
  return `${done}/${total} answers are saved in ${runDir}; finish with: hisrag run --resume ${runDir}`;
}

function timestampId(date = new Date()): string {
  return date.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
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
  let lock: HeldLock | undefined;
  try {
    return await runHoldingLock(options, (held) => (lock = held));
  } finally {
    await lock?.release();
  }
}

async function runHoldingLock(options: RunOptions, holdLock: (lock: HeldLock) => void): Promise<RunResult> {
  const log = options.log ?? (() => {});
  const signal = options.signal;
  let config: ExperimentConfig;
  let runDir: string;
  let previousManifest: StoredRunManifest | undefined;
  if (options.resumeDir) {
    runDir = resolve(options.resumeDir);
    assertRunDirectory(runDir);
    holdLock(await acquireRunLock(runDir, log));
    const stored = JSON.parse(await readFile(runFile(runDir, 'config'), 'utf8'));
    config = validateExperimentConfig(stored, runFile(runDir, 'config'));
    previousManifest = await readRunManifest(runDir);
    // A run killed outright (kill -9) may have left a half-written temporary file behind.
    await removeStaleTempFiles(runDir);
  } else {
    if (!options.config) throw new InputError('runExperiment needs a config or a run directory to resume');
    config = options.config;
    runDir = resolve(config.output, options.runId ?? `${config.name}-${timestampId()}`);
    // Locked before the check, so a run still writing this directory is named as its holder.
    await mkdir(runDir, { recursive: true });
    holdLock(await acquireRunLock(runDir, log));
    if (existsSync(runFile(runDir, 'items')) || existsSync(runFile(runDir, 'config'))) {
      throw new InputError(`${runDir} already holds a run; use --resume ${runDir} to finish it`);
    }
    // The run directory and its config exist from the first moment, so a run interrupted
    // while preparing its artefacts is resumed like any other. Secrets are redacted (keys
    // come from the environment).
    await atomicWriteJson(runFile(runDir, 'config'), redactSecrets(config));
  }
  // Before the first answer there is nothing to count yet; the run directory already resumes.
  const stopIfInterrupted = () => {
    if (signal?.aborted) throw new InterruptedError(`interrupted before the first answer; finish with: hisrag run --resume ${runDir}`);
  };

  try {
    await prepareArtefacts(config, { log, progress: options.progress ?? false, signal });
  } catch (error) {
    stopIfInterrupted();
    throw error;
  }
  stopIfInterrupted();
  const stages = await buildStages(config);
  try {
    stopIfInterrupted();
    const conditions = planConditions(config, (spec, path) => stages.method(spec, path));
    const items = stages.items;
    const conditionNames = conditions.map((c) => c.name);
    const modelLabels = stages.models.map((m) => m.label);

    const startedAt = new Date().toISOString();
    const manifest = await buildRunManifest({ config, configFile: options.configFile, runDir, stages, startedAt, conditions: conditionNames, previous: previousManifest });
    await writeRunManifest(runDir, manifest);
    // plan.json: the dry run's plan on these stages, before the first answer (kept on resume; no model called).
    const plan = await writePlanAtRunStart(runDir, config, stages, conditions, { ...(signal ? { signal } : {}), log });

    await ensureFileExists(runFile(runDir, 'items'));
    const existing = await readRunRecords(runDir, { repair: true });
    // Failed items are answered again on resume (unless told not to); the new record wins.
    const retryFailed = options.retryFailed ?? true;
    const done = new Set(existing.filter((r) => !retryFailed || r.score.status === 'scored').map((r) => r.key));
    const retrying = existing.length - done.size;

    const tasks = gridTasks(stages, conditions, done);
    const context = createTaskContext(stages, conditions, tasks, signal);
    const samplesOf = stages.models.map((m) => m.samples);
    const total = samplesOf.reduce((n, s) => n + s, 0) * conditions.length * items.length;
    const sampleNote = samplesOf.some((s) => s > 1) ? ` × ${new Set(samplesOf).size === 1 ? samplesOf[0] : samplesOf.join('/')} samples` : '';
    log(
      `hisrag run ${config.name}: ${items.length} questions × ${conditions.length} conditions × ${stages.models.length} models${sampleNote} = ${total} answers` +
        (existing.length ? ` (${done.size} already done, ${tasks.length} to go${retrying ? `, of which ${retrying} failed before and are retried` : ''})` : ''),
    );
    log(`run directory: ${runDir}`);
    for (const line of stages.describeLines()) log(line);

    // Batch mode (models, judge or extractor with `batch`): their calls are answered through batch
    // APIs round by round first — each round runs every task with the queues collecting and records
    // nothing — so the run below answers every call from the response cache.
    const batchQueues = stages.batchQueues();
    if (batchQueues.length > 0 && tasks.length > 0) {
      await answerInBatches({
        queues: batchQueues,
        runDir,
        log,
        signal,
        collect: (round) => collectRound({ stages, config, tasks, context, label: `batch round ${round}: answers gone through`, progress: options.progress ?? false }),
      });
    }

    const perCondition = new Map<string, { done: number; total: number }>();
    for (const c of conditions) perCondition.set(c.name, { done: 0, total: items.length * samplesOf.reduce((n, s) => n + s, 0) });
    for (const r of existing) {
      const pc = perCondition.get(r.condition);
      if (pc && done.has(r.key)) pc.done++;
    }
    const progress = createProgress({ label: 'answers', total: tasks.length, silent: !options.progress });
    let failures = 0;
    let answered = 0;
    const appender = await JsonlAppender.open(runFile(runDir, 'items'));
    // Appends are serialised so lines never interleave.
    let appendChain: Promise<void> = Promise.resolve();
    const append = (record: RunItemRecord) => (appendChain = appendChain.then(() => appender.append([record])));

    const baseRecord = ({ key, model, condition, item, sample }: Task) => ({
      key,
      ...(model.samples > 1 ? { sample } : {}),
      itemId: item.id,
      benchmark: item.benchmark,
      kind: item.kind,
      category: item.category,
      task: item.task,
      question: item.question,
      model: model.label,
      condition: condition.name,
      strategy: condition.strategyLabel,
      retriever: condition.retrieverLabel,
      k: condition.k,
      groups: itemGroups(item),
      ...(item.evidencePages?.length ? { evidence: { ...(item.docId ? { docId: item.docId } : {}), pages: item.evidencePages } } : {}),
    });

    const limit = pLimit(config.execution.concurrency);
    // Set when nothing new may start: the user interrupted, the failure limit was reached, or
    // a fatal error (bad input, an endpoint that is down) stopped the run. Queued tasks see it
    // and return at once (clearing p-limit's queue instead would leave their promises pending).
    let stopScheduling = false;
    let stopReason: string | undefined;
    let fatal: unknown;
    const userStopped = () => signal?.aborted === true;
    const onAbort = () => {
      stopScheduling = true;
    };
    signal?.addEventListener('abort', onAbort, { once: true });

    const runTask = async (task: Task): Promise<void> => {
      if (stopScheduling) return;
      const { model, condition, item } = task;
      const retriever = condition.usesRetrieval ? stages.retriever(condition.retrieverLabel!) : undefined;
      // Every condition runs a method (a single-shot strategy is one); the runner only records what
      // the method's traced steps did, whatever the method.
      const method = stages.method(condition.strategy, condition.strategyPath);
      const run = context.methodRunFor(task);
      let outcome: MethodOutcome | undefined;
      let error: string | undefined;
      let stopsRun = false;
      try {
        outcome = await method.run(run);
      } catch (e) {
        if (e instanceof InputError || e instanceof ServiceUnavailableError) throw e;
        if (userStopped()) return; // aborted mid-method: the item is redone on resume
        // A step failed after the endpoint's retries: the item fails whole, its trace kept.
        error = (e as Error).message;
        stopsRun = e instanceof MethodStepError && e.stopsRun;
      }
      let score: RunItemRecord['score'];
      if (outcome) {
        if (config.scoring.emptyAnswer === 'failed' && stripThink(outcome.answer).trim() === '') {
          const why = outcome.response.emptyAfterAttempts ? `the endpoint returned empty completions on all ${outcome.response.emptyAfterAttempts} attempts` : 'the model gave an empty answer';
          score = { status: 'generation_failed', score: null, scoreRaw: null, metric: stages.metricFor(item), rule: 'empty-answer', error: `empty answer: ${why} (scoring.emptyAnswer: failed)` };
        } else {
          score = await stages.score(item, outcome.answer);
        }
      } else {
        score = { status: 'generation_failed', score: null, scoreRaw: null, metric: stages.metricFor(item), error };
      }
      // Passages a method got from outside the retriever (an external system's contexts) count as retrieved.
      const retrieved = [...run.retrieved(), ...(outcome?.passages ?? [])];
      // issue 14 (reranking): a reranked retriever also hands back its cached first-stage list, for recall@k before reranking.
      const firstStage = retriever && run.questionList ? await retriever.firstStage?.(stages.queryFor(item)) : undefined;
      const retrievalMetrics = (condition.usesRetrieval || outcome?.passages !== undefined) && outcome ? methodRetrievalMetrics(item, retrieved, outcome.contextIds, condition.k ?? 0, firstStage) : undefined;
      const result = outcome?.response;
      const cost = withExternalCost(run.cost(), outcome?.externalCost);
      const record: RunItemRecord = {
        ...baseRecord(task),
        prompt: (outcome?.prompt ?? []).map(recordedMessageOf),
        retrieved: recordedChunks(retrieved),
        contextIds: outcome?.contextIds ?? [],
        truncated: outcome?.truncated ?? 0,
        response: result
          ? {
              text: outcome!.answer,
              raw: result.raw,
              ...(result.reasoning ? { reasoning: result.reasoning } : {}),
              ...(result.usage ? { usage: Object.fromEntries(Object.entries(result.usage).filter(([, v]) => typeof v === 'number')) as Record<string, number> } : {}),
              ...(result.cached ? { cached: true } : {}),
              ...(result.emptyAfterAttempts ? { emptyAfterAttempts: result.emptyAfterAttempts } : {}),
            }
          : null,
        score,
        ...(retrievalMetrics ? { retrievalMetrics } : {}),
        ...(error ? { error } : {}),
        trace: run.trace,
        cost,
        ...(outcome?.notes ? { methodNotes: outcome.notes } : {}),
        durationMs: cost.durationMs,
      };
      // Everything that finished is kept, also after a stop was requested.
      await append(record);
      if (stopsRun) {
        // Every other item would fail the same way (a model without what the method needs): stop now.
        stopScheduling = true;
        fatal ??= new InputError(`${model.label} · ${condition.name} · ${item.id}: ${error}`);
      }
      answered++;
      const pc = perCondition.get(condition.name)!;
      pc.done++;
      if (record.score.status !== 'scored') failures++;
      progress.tick(1, { failed: failures, [condition.name]: `${pc.done}/${pc.total}` });
      if (config.execution.maxFailures > 0 && failures >= config.execution.maxFailures && !stopScheduling) {
        stopReason = `stopped after ${failures} failed answers (execution.maxFailures: ${config.execution.maxFailures}); the answers in flight were kept`;
        stopScheduling = true;
      }
    };

    try {
      // A bad-input error (e.g. a retriever refusing a query) or an endpoint that is down stops
      // the run: nothing new is scheduled, the answers in flight finish and are kept, then the
      // error is reported.
      await Promise.allSettled(
        tasks.map((task) =>
          limit(() =>
            runTask(task).catch((error) => {
              fatal ??= error;
              stopScheduling = true;
              throw error;
            }),
          ),
        ),
      );
    } finally {
      await appendChain;
      await appender.close();
      progress.stop();
      signal?.removeEventListener('abort', onAbort);
    }

    const records = await readRunRecords(runDir);
    const complete = records.length >= total && !userStopped() && !fatal && !stopReason;
    const finalManifest: RunManifest = {
      ...manifest,
      finishedAt: complete ? new Date().toISOString() : null,
      complete,
      answers: { done: records.length, total, failed: records.filter((r) => r.score.status !== 'scored').length },
      ...(stopReason || fatal ? { stoppedBecause: stopReason ?? (fatal as Error).message } : {}),
    };
    await writeRunManifest(runDir, finalManifest);
    if (fatal) {
      if (fatal instanceof Error) fatal.message += `\n(${resumeHint(runDir, records.length, total)})`;
      throw fatal;
    }

    // The summary and report cover what is done, also for a run that stopped early.
    const summary = summarizeRun(records, {
      experiment: config.name,
      models: modelLabels,
      conditions: conditionNames,
      baseline: config.scoring.baseline,
      versus: config.scoring.versus,
      resamples: config.scoring.bootstrapResamples,
      seed: config.seed,
      ...(config.scoring.cluster !== undefined ? { cluster: config.scoring.cluster } : {}),
      ...(config.scoring.reducer ? { reducer: config.scoring.reducer } : {}),
      methods: methodsByStrategy(config),
    });
    await writeRunSummary(runDir, summary);
    await atomicWrite(runFile(runDir, 'summaryCsv'), summaryCsv(summary));
    await atomicWrite(runFile(runDir, 'report'), renderReportHtml({ summary, records, manifest: finalManifest, ...(plan ? { plan } : {}) }));

    log('');
    log(summaryTable(summary));
    log('');
    const fallbacks = summary.cells.reduce((n, cell) => n + cell.rerankFallbacks, 0);
    if (fallbacks > 0) log(`${fallbacks} answers used the first-stage order because the reranker's ranking was unusable (rerankFallbacks in summary.json)`);
    for (const line of failureLines(records)) log(line);
    if (summary.totals.empty > 0) log(`${summary.totals.empty} answers were empty (scored by the benchmark's rule, ${config.scoring.emptyAnswer === 'failed' ? 'recorded as failed' : 'counted as 0'}; "empty" column)`);
    log(`report: ${runFile(runDir, 'report')}`);
    if (stopReason) throw new ServiceUnavailableError(`${stopReason}\n(${resumeHint(runDir, records.length, total)})`);
    if (!complete) log(`run incomplete: ${resumeHint(runDir, records.length, total)}`);
    return { runDir, summary, newItems: answered, interrupted: userStopped() || records.length < total };
  } finally {
    // Methods, retrievers and scorers release what they hold (a method's own: see buildStages), also after an interrupt or an error.
    await stages.close();
  }
}

/**
 * One line per condition with failed answers: how many, which questions (the first few) and the
 * first reason — so a failure (an endpoint's, a judge's, a saved-outputs file that omits items) is
 * named, not only counted in the table's `failed` column.
 */
export function failureLines(records: RunItemRecord[], shown = 5): string[] {
  const byCell = new Map<string, RunItemRecord[]>();
  for (const r of records) {
    if (r.score.status === 'scored') continue;
    const key = `${r.model} · ${r.condition}`;
    const list = byCell.get(key);
    if (list) list.push(r);
    else byCell.set(key, [r]);
  }
  return [...byCell].map(([cell, list]) => {
    const ids = list.map((r) => r.itemId);
    const reason = (list[0]!.score.error ?? list[0]!.error ?? list[0]!.score.status).split('\n')[0];
    return `${cell}: ${list.length} failed, excluded from the mean (${ids.slice(0, shown).join(', ')}${ids.length > shown ? `, … ${ids.length - shown} more` : ''}): ${reason}`;
  });
}

/** Re-reads a run directory and rewrites summary.json, summary.csv and report.html. */
export async function regenerateReport(runDir: string): Promise<{ summary: RunSummary; reportPath: string }> {
  // The results API reads runs for notebooks too: one reader, one summary, for every consumer.
  const run = await loadRun(runDir);
  await writeRunSummary(run.dir, run.summary);
  await atomicWrite(runFile(run.dir, 'summaryCsv'), summaryCsv(run.summary));
  const reportPath = runFile(run.dir, 'report');
  await atomicWrite(reportPath, renderReportHtml({ summary: run.summary, records: run.records, manifest: run.manifest, ...(run.plan ? { plan: run.plan } : {}) }));
  return { summary: run.summary, reportPath };
}
