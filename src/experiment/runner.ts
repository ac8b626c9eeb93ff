import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import pLimit from 'p-limit';
import type { ExperimentConfig } from '../config/experiment.js';
import { validateExperimentConfig } from '../config/load.js';
import { InputError } from '../errors.js';
import { atomicWrite, atomicWriteJson } from '../io/atomicWrite.js';
import { JsonlAppender } from '../io/jsonl.js';
import { createProgress } from '../progress/progress.js';
import { renderReportHtml } from '../report/html.js';
import { summaryCsv } from '../report/csv.js';
import { summaryTable } from '../report/table.js';
import type { BenchmarkItem } from '../benchmarks/types.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { scoreItem } from '../scoring/scoreItem.js';
import { buildStages, type Stages } from './stages.js';
import { planConditions, type Condition } from './plan.js';
import type { RunItemRecord } from './records.js';
import { redactSecrets } from './redact.js';
import { buildRunManifest } from './manifest.js';
import { prepareArtefacts } from './prepare.js';
import { assertRunDirectory, ensureFileExists, readRunRecords, runFile } from './runDirectory.js';
import { summarizeRun, type RunSummary } from './summary.js';
import { loadRun } from '../results/loadRun.js';
import { itemGroups, recordedChunks, retrievalMetricsFor } from './itemDetails.js';

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
  signal?: AbortSignal;
}

export interface RunResult {
  runDir: string;
  summary: RunSummary;
  /** Items answered in this invocation (0 when everything was already done). */
  newItems: number;
  interrupted: boolean;
}

function timestampId(date = new Date()): string {
  return date.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

const itemKey = (item: BenchmarkItem) => `${item.benchmark}:${item.id}`;

/**
 * Runs (or resumes) an experiment grid: models × conditions × benchmark items. Every finished
 * item is appended to items.jsonl at once, so an interrupted run — Ctrl-C or kill -9 —
 * resumes with `--resume` and neither loses nor repeats an answer. Failures (an endpoint that
 * still fails after its retries, a judge whose output cannot be parsed) are recorded with
 * their reason and excluded from means, never scored 0.
 */
export async function runExperiment(options: RunOptions): Promise<RunResult> {
  const log = options.log ?? (() => {});
  let config: ExperimentConfig;
  let runDir: string;
  let previousManifest: Record<string, unknown> | undefined;
  if (options.resumeDir) {
    runDir = resolve(options.resumeDir);
    assertRunDirectory(runDir);
    const stored = JSON.parse(await readFile(runFile(runDir, 'config'), 'utf8'));
    config = validateExperimentConfig(stored, runFile(runDir, 'config'));
    previousManifest = JSON.parse(await readFile(runFile(runDir, 'manifest'), 'utf8').catch(() => '{}'));
  } else {
    if (!options.config) throw new InputError('runExperiment needs a config or a run directory to resume');
    config = options.config;
    runDir = resolve(config.output, options.runId ?? `${config.name}-${timestampId()}`);
    if (existsSync(runFile(runDir, 'items'))) {
      throw new InputError(`${runDir} already holds a run; use --resume ${runDir} to finish it`);
    }
  }

  await prepareArtefacts(config, { log, progress: options.progress ?? false });
  const stages = await buildStages(config);
  try {
    const conditions = planConditions(config, (spec, path) => stages.strategy(spec, path).usesRetrieval);
    const items = stages.items;
    const conditionNames = conditions.map((c) => c.name);
    const modelLabels = stages.models.map((m) => m.label);

    await mkdir(runDir, { recursive: true });
    // The stored config is what a resume runs: secrets redacted (keys come from the environment).
    if (!options.resumeDir) await atomicWriteJson(runFile(runDir, 'config'), redactSecrets(config));
    const startedAt = new Date().toISOString();
    const manifest = await buildRunManifest({ config, configFile: options.configFile, runDir, stages, startedAt, conditions: conditionNames, previous: previousManifest });
    await atomicWriteJson(runFile(runDir, 'manifest'), manifest);

    await ensureFileExists(runFile(runDir, 'items'));
    const existing = await readRunRecords(runDir, { repair: true });
    const done = new Set(existing.map((r) => r.key));

    interface Task { model: Stages['models'][number]; condition: Condition; item: BenchmarkItem; key: string }
    const tasks: Task[] = [];
    for (const model of stages.models) {
      for (const condition of conditions) {
        for (const item of items) {
          const key = `${model.label}|${condition.name}|${itemKey(item)}`;
          if (!done.has(key)) tasks.push({ model, condition, item, key });
        }
      }
    }
    const total = stages.models.length * conditions.length * items.length;
    log(
      `hisrag run ${config.name}: ${items.length} questions × ${conditions.length} conditions × ${stages.models.length} models = ${total} answers` +
        (existing.length ? ` (${existing.length} already done, ${tasks.length} to go)` : ''),
    );
    log(`run directory: ${runDir}`);
    for (const line of stages.describeLines()) log(line);

    const perCondition = new Map<string, { done: number; total: number }>();
    for (const c of conditions) perCondition.set(c.name, { done: 0, total: items.length * stages.models.length });
    for (const r of existing) {
      const pc = perCondition.get(r.condition);
      if (pc) pc.done++;
    }
    const progress = createProgress({ label: 'answers', total: tasks.length, silent: !options.progress });
    let failures = existing.filter((r) => r.score.status !== 'scored').length;
    const appender = await JsonlAppender.open(runFile(runDir, 'items'));
    // Appends are serialised so lines never interleave.
    let appendChain: Promise<void> = Promise.resolve();
    const append = (record: RunItemRecord) => (appendChain = appendChain.then(() => appender.append([record])));

    const retrievalMemo = new Map<string, Promise<RetrievedChunk[]>>();
    const maxDepth = new Map<string, number>();
    for (const c of conditions) {
      if (c.retrieverLabel && c.k) maxDepth.set(c.retrieverLabel, Math.max(c.k, maxDepth.get(c.retrieverLabel) ?? 0));
    }
    const retrieve = (condition: Condition, item: BenchmarkItem): Promise<RetrievedChunk[]> => {
      const retriever = stages.retriever(condition.retrieverLabel!);
      const query = stages.queryFor(item);
      // Rankings are prefix-consistent for real retrievers: retrieve once at the deepest k and
      // cut. Control retrievers whose list depends on k (oracle+noise) are asked per depth.
      const depth = retriever.depthDependent ? condition.k! : maxDepth.get(condition.retrieverLabel!)!;
      const memoKey = `${condition.retrieverLabel}|${depth}|${itemKey(item)}`;
      let pending = retrievalMemo.get(memoKey);
      if (!pending) {
        pending = retriever.retrieve(query, depth);
        retrievalMemo.set(memoKey, pending);
      }
      return pending.then((list) => list.slice(0, condition.k!));
    };

    const limit = pLimit(config.execution.concurrency);
    let interrupted = false;
    let stopReason: string | undefined;
    // Queued tasks see the flag and return at once (clearing p-limit's queue instead would
    // leave their promises pending forever).
    const onAbort = () => {
      interrupted = true;
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const runTask = async (task: Task): Promise<void> => {
      if (interrupted) return;
      const started = Date.now();
      const { model, condition, item } = task;
      let retrieved: RetrievedChunk[] = [];
      let record: RunItemRecord;
      const base = {
        key: task.key,
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
      };
      try {
        if (condition.usesRetrieval) retrieved = await retrieve(condition, item);
        const strategy = stages.strategy(condition.strategy, condition.strategyPath);
        const prompt = strategy.build({ item, context: condition.usesRetrieval ? retrieved : null });
        // issue 14 (reranking): a reranked retriever also hands back its cached first-stage list, for recall@k before reranking.
        const firstStage = condition.usesRetrieval ? await stages.retriever(condition.retrieverLabel!).firstStage?.(stages.queryFor(item)) : undefined;
        const retrievalMetrics = condition.usesRetrieval ? retrievalMetricsFor(item, retrieved, condition.k!, firstStage) : undefined;
        let response: RunItemRecord['response'] = null;
        let score: RunItemRecord['score'];
        let error: string | undefined;
        try {
          const result = await model.generator.generate(prompt.messages, { signal: options.signal });
          response = {
            text: result.text,
            raw: result.raw,
            ...(result.reasoning ? { reasoning: result.reasoning } : {}),
            ...(result.usage ? { usage: Object.fromEntries(Object.entries(result.usage).filter(([, v]) => typeof v === 'number')) as Record<string, number> } : {}),
            ...(result.cached ? { cached: true } : {}),
          };
        } catch (e) {
          error = (e as Error).message;
        }
        if (interrupted && !response) return; // aborted mid-request: leave it for the resume
        if (response) {
          // Chain-of-thought strategies are scored on their final answer only.
          score = await stages.score(item, strategy.finalAnswer?.(response.text) ?? response.text);
        } else {
          score = { status: 'generation_failed', score: null, scoreRaw: null, metric: stages.metricFor(item), error };
        }
        record = {
          ...base,
          prompt: prompt.messages,
          retrieved: recordedChunks(retrieved),
          contextIds: prompt.contextIds,
          truncated: prompt.truncated,
          response,
          score,
          ...(retrievalMetrics ? { retrievalMetrics } : {}),
          ...(error ? { error } : {}),
          durationMs: Date.now() - started,
        };
      } catch (e) {
        if (e instanceof InputError) throw e;
        if (interrupted) return;
        // Retrieval or prompt building failed for this item: recorded, excluded from means.
        const message = (e as Error).message;
        record = {
          ...base,
          prompt: [],
          retrieved: recordedChunks(retrieved),
          contextIds: [],
          truncated: 0,
          response: null,
          score: { status: 'generation_failed', score: null, scoreRaw: null, metric: stages.metricFor(item), error: message },
          error: message,
          durationMs: Date.now() - started,
        };
      }
      await append(record);
      const pc = perCondition.get(condition.name)!;
      pc.done++;
      if (record.score.status !== 'scored') failures++;
      progress.tick(1, { failed: failures, [condition.name]: `${pc.done}/${pc.total}` });
      if (config.execution.maxFailures > 0 && failures >= config.execution.maxFailures && !interrupted) {
        stopReason = `stopped after ${failures} failures (execution.maxFailures)`;
        onAbort();
      }
    };

    let fatal: unknown;
    try {
      // A bad-input error (e.g. a retriever refusing a query) stops the run: nothing new is
      // scheduled, the answers in flight finish and are kept, then the error is reported.
      const settled = await Promise.allSettled(
        tasks.map((task) =>
          limit(() =>
            runTask(task).catch((error) => {
              fatal ??= error;
              onAbort();
              throw error;
            }),
          ),
        ),
      );
      void settled;
    } finally {
      await appendChain;
      await appender.close();
      progress.stop();
      options.signal?.removeEventListener('abort', onAbort);
    }
    if (fatal) {
      const done = (await readRunRecords(runDir)).length;
      if (fatal instanceof Error) fatal.message += `\n(${done}/${total} answers are saved in ${runDir}; fix the problem and finish with: hisrag run --resume ${runDir})`;
      throw fatal;
    }

    const records = await readRunRecords(runDir);
    const summary = summarizeRun(records, {
      experiment: config.name,
      models: modelLabels,
      conditions: conditionNames,
      baseline: config.scoring.baseline,
      resamples: config.scoring.bootstrapResamples,
      seed: config.seed,
    });
    const complete = records.length >= total;
    const finalManifest = { ...manifest, finishedAt: complete ? new Date().toISOString() : null, complete, answers: { done: records.length, total } };
    await atomicWriteJson(runFile(runDir, 'manifest'), finalManifest);
    await atomicWriteJson(runFile(runDir, 'summary'), summary);
    await atomicWrite(runFile(runDir, 'summaryCsv'), summaryCsv(summary));
    await atomicWrite(runFile(runDir, 'report'), renderReportHtml({ summary, records, manifest: finalManifest }));

    log('');
    log(summaryTable(summary));
    log('');
    if (stopReason) log(stopReason);
    if (!complete) log(`run incomplete (${records.length}/${total} answers); finish it with: hisrag run --resume ${runDir}`);
    log(`report: ${runFile(runDir, 'report')}`);
    return { runDir, summary, newItems: records.length - existing.length, interrupted: interrupted || !complete };
  } finally {
    await stages.close();
  }
}

/** Re-reads a run directory and rewrites summary.json, summary.csv and report.html. */
export async function regenerateReport(runDir: string): Promise<{ summary: RunSummary; reportPath: string }> {
  // The results API reads runs for notebooks too: one reader, one summary, for every consumer.
  const run = await loadRun(runDir);
  await atomicWriteJson(runFile(run.dir, 'summary'), run.summary);
  await atomicWrite(runFile(run.dir, 'summaryCsv'), summaryCsv(run.summary));
  const reportPath = runFile(run.dir, 'report');
  await atomicWrite(reportPath, renderReportHtml({ summary: run.summary, records: run.records, manifest: run.manifest }));
  return { summary: run.summary, reportPath };
}
