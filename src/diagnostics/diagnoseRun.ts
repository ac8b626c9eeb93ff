import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import pLimit from 'p-limit';
import { benchmarks } from '../benchmarks/registry.js';
import type { BenchmarkItem } from '../benchmarks/types.js';
import type { ExperimentConfig } from '../config/experiment.js';
import { applyOverrides } from '../config/load.js';
import { readRunConfig } from '../config/runConfig.js';
import { ConfigError, formatZodIssues, InterruptedError } from '../errors.js';
import { plannedConditions, retrieversOf } from '../experiment/plan.js';
import { RunItemRecordSchema, type RunItemRecord } from '../runFiles/itemRecord.js';
import { assertRunDirectory, readRunRecords, runFile } from '../runFiles/runDir.js';
import { ensureFileExists } from '../experiment/runDirectory.js';
import { atomicWrite, atomicWriteJson, removeStaleTempFiles } from '../io/atomicWrite.js';
import { JsonlAppender, jsonlEntries } from '../io/jsonl.js';
import { createProgress } from '../progress/progress.js';
import { createRetrieverContext } from '../retrieval/registry.js';
import type { Retriever } from '../retrieval/types.js';
import { createRetrieverWithRerank } from '../rerank/rerankedRetriever.js';
import { claimCheckers, claimExtractors } from './claims/registry.js';
import type { ClaimChecker, ClaimExtractor } from './claims/types.js';
import { DiagnosticsConfigSchema, type DiagnosticsConfig } from '../config/diagnostics.js';
import { diagnoseItem, LabelService, type DiagnosisContext } from './diagnoseItem.js';
import { LabelStore } from './labelStore.js';
import { groupBy } from './groupBy.js';
import { hybridPairScorer, lexicalPairScorer, NEAR_BEST, relevancePairScorer, type PairScorer } from './prefilter.js';
import { DIAGNOSTICS_FORMAT, diagnosticsFile, readDiagnosticsLines, recordFingerprint, sentTotals, type DiagnosticsLine, type DiagnosticsState } from '../runFiles/diagnostics.js';
import { readRunManifest } from '../runFiles/manifest.js';

export interface DiagnoseOptions {
  /** Diagnostics settings to use instead of the run config's `diagnostics:` section. */
  config?: DiagnosticsConfig;
  /** `--set path=value` over the settings (`prefilter=none`, `checker.name=openai`, also with a `diagnostics.` prefix). */
  overrides?: string[];
  log?: (line: string) => void;
  progress?: boolean;
  signal?: AbortSignal;
}

/** What a diagnosis got through: answers with a current diagnosis, of the answers to diagnose. */
export interface DiagnosisCounts {
  diagnosed: number;
  toDiagnose: number;
  /** Diagnosed in this invocation. */
  newlyDiagnosed: number;
}

/** A run directory ready to diagnose: its config, the settings that apply, and the claim models and baseline they need. */
export interface RunDiagnosis {
  runDir: string;
  config: ExperimentConfig;
  settings: DiagnosticsConfig;
  prepared: Awaited<ReturnType<typeof prepareDiagnostics>>;
}

/** Where the claim models come from when the settings name none: the run's judge endpoint, or the offline stand-ins. */
export function defaultClaimModels(config: ExperimentConfig): { extractor: Record<string, unknown> & { name: string }; checker: Record<string, unknown> & { name: string } } {
  const judge = config.judge;
  if (judge?.name === 'llm' && judge.generator && typeof judge.generator === 'object') {
    return { extractor: { name: 'llm', generator: judge.generator }, checker: { name: 'llm', generator: judge.generator } };
  }
  return { extractor: { name: 'sentences' }, checker: { name: 'lexical' } };
}

/** The run's diagnostics settings: its config's section (or the given one), `--set` applied, validated. */
export function resolveDiagnosticsConfig(config: ExperimentConfig, options: Pick<DiagnoseOptions, 'config' | 'overrides'> = {}): DiagnosticsConfig {
  const base = structuredClone(options.config ?? config.diagnostics ?? {});
  const overrides = (options.overrides ?? []).map((o) => o.replace(/^diagnostics\./, ''));
  const raw = applyOverrides(base, overrides);
  const parsed = DiagnosticsConfigSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`diagnostics: ${formatZodIssues(parsed.error, 'diagnostics')}`);
  return parsed.data;
}

/** The conditions a config's grid has, in order (no stage is built: methods are created to ask whether they retrieve). */
export async function plannedConditionNames(config: ExperimentConfig): Promise<string[]> {
  return (await plannedConditions(config)).map((c) => c.name);
}

/** Settings checked before any call: an unknown condition, extractor or checker, or one that cannot run, is a ConfigError. */
export async function prepareDiagnostics(
  config: ExperimentConfig,
  settings: DiagnosticsConfig,
  conditions: string[],
): Promise<{ extractor: ClaimExtractor; checker: ClaimChecker; baseline: string }> {
  const baseline = settings.baseline ?? config.scoring.baseline;
  if (!conditions.includes(baseline)) {
    throw new ConfigError(`diagnostics.baseline: unknown condition "${baseline}" (this run's conditions: ${conditions.join(', ')})`);
  }
  for (const [i, name] of (settings.conditions ?? []).entries()) {
    if (!conditions.includes(name)) throw new ConfigError(`diagnostics.conditions[${i}]: unknown condition "${name}" (this run's conditions: ${conditions.join(', ')})`);
  }
  const defaults = defaultClaimModels(config);
  const extractor = await namingField('diagnostics.extractor', () => claimExtractors.create(settings.extractor ?? defaults.extractor, undefined, 'diagnostics.extractor'));
  const checker = await namingField('diagnostics.checker', () => claimCheckers.create(settings.checker ?? defaults.checker, undefined, 'diagnostics.checker'));
  return { extractor, checker, baseline };
}

/** A component failing in its constructor (an unset `apiKeyEnv`) does not say which setting built it: prefix the field. */
async function namingField<T>(path: string, create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (error) {
    if (error instanceof ConfigError && !error.message.startsWith(path)) throw new ConfigError(`${path}: ${error.message}`);
    throw error;
  }
}

async function loadItems(config: ExperimentConfig): Promise<Map<string, BenchmarkItem>> {
  const specs = config.benchmarks.map((spec, i) => ({ spec, path: `benchmarks[${i}]` }));
  const items = new Map<string, BenchmarkItem>();
  for (const { spec, path } of specs) {
    const benchmark = await benchmarks.create(spec, undefined, path);
    for (const item of await benchmark.load()) items.set(`${item.benchmark}:${item.id}`, item);
  }
  return items;
}

/** The prefilter's scorer per retriever: its relevance where asked for and available, lexical otherwise (with why). */
async function openScorers(config: ExperimentConfig, settings: DiagnosticsConfig, labels: Set<string>): Promise<{ scorers: Map<string, PairScorer>; described: Record<string, string>; close: () => Promise<void> }> {
  const scorers = new Map<string, PairScorer>();
  const described: Record<string, string> = {};
  const opened: Retriever[] = [];
  const context = createRetrieverContext({ seed: config.seed });
  for (const planned of retrieversOf(config)) {
    if (!labels.has(planned.label)) continue;
    const use = (scorer: PairScorer, how: string) => {
      scorers.set(planned.label, scorer);
      described[planned.label] = how;
    };
    if (settings.prefilter === 'lexical' || settings.prefilter === 'none') {
      use(lexicalPairScorer(), settings.prefilter === 'none' ? 'none (all pairs)' : 'lexical');
      continue;
    }
    let retriever: Retriever;
    try {
      retriever = await createRetrieverWithRerank(planned.spec, context, planned.path);
      opened.push(retriever);
    } catch (error) {
      use(lexicalPairScorer(), `lexical (the retriever could not be opened: ${(error as Error).message.split('\n')[0]})`);
      continue;
    }
    const r = retriever;
    const relevance = (query: string, texts: string[]) => r.relevance!(query, texts);
    if (!retriever.relevance) use(lexicalPairScorer(), `lexical (${retriever.name} has no relevance score)`);
    else if (settings.prefilter === 'hybrid') use(hybridPairScorer(relevance, settings.topChunks), `hybrid (lexical coverage, ${retriever.name} relevance between equals)`);
    else use(relevancePairScorer(relevance), `relevance (${retriever.name})`);
  }
  return { scorers, described, close: async () => { for (const r of opened) await r.close().catch(() => {}); } };
}

const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 32);

/** Reads a run directory's config and settles the diagnostics settings; settings that cannot work are reported here, before the run's lock is taken. */
export async function prepareRunDiagnosis(runDirInput: string, options: DiagnoseOptions = {}): Promise<RunDiagnosis> {
  const runDir = resolve(runDirInput);
  assertRunDirectory(runDir);
  // Settings that cannot work are reported before anything else, also while another process writes the run.
  const config = await readRunConfig(runDir);
  const manifest = await readRunManifest(runDir);
  const conditions = manifest.conditions?.length ? manifest.conditions : await plannedConditionNames(config);
  const settings = resolveDiagnosticsConfig(config, options);
  const prepared = await prepareDiagnostics(config, settings, conditions);
  return { runDir, config, settings, prepared };
}

/**
 * Diagnoses the chosen conditions' scored answers (the caller holds the run's lock), each appended to
 * diagnostics.jsonl as it finishes, then merged into items.jsonl. Interrupted or stopped by an endpoint
 * that is down, it resumes where it stopped; answers with failed checks are redone on the next call.
 */
export async function diagnoseAnswers({ runDir, config, settings, prepared: { extractor, checker, baseline } }: RunDiagnosis, options: DiagnoseOptions = {}): Promise<DiagnosisCounts> {
  const log = options.log ?? (() => {});
  await removeStaleTempFiles(runDir);
  const records = await readRunRecords(runDir);

  const wanted = settings.conditions ? new Set(settings.conditions) : undefined;
  const scored = records.filter((r) => r.score.status === 'scored' && r.response !== null && (!wanted || wanted.has(r.condition) || r.condition === baseline));
  const items = await loadItems(config);
  for (const r of scored) {
    if (!items.has(`${r.benchmark}:${r.itemId}`)) {
      throw new ConfigError(`${runFile(runDir, 'items')}: record ${r.key}: its question is not in the run's benchmark any more (was the benchmark file changed?); diagnostics need the item's gold`);
    }
  }
  const retrieverLabels = new Set(scored.flatMap((r) => (r.retriever ? [r.retriever] : [])));
  const { scorers, described, close } = await openScorers(config, settings, retrieverLabels);
  const store = new LabelStore(settings.cache ? resolve(settings.cache) : diagnosticsFile(runDir, 'cache'));
  try {
    const settingsFingerprint = hash([DIAGNOSTICS_FORMAT, extractor.fingerprint, checker.fingerprint, checker.claimsPerCall, settings.prefilter, settings.topChunks, NEAR_BEST, described]);
    const startedAt = new Date().toISOString();
    const state: DiagnosticsState = {
      fingerprint: settingsFingerprint,
      settings: {
        baseline,
        delta: settings.delta ?? null,
        prefilter: settings.prefilter,
        topChunks: settings.topChunks,
        extractor: extractor.describe(),
        checker: checker.describe(),
        scorers: described,
        conditions: settings.conditions ?? null,
      },
      complete: false,
      startedAt,
      finishedAt: null,
    };
    await atomicWriteJson(diagnosticsFile(runDir, 'state'), state);

    await ensureFileExists(diagnosticsFile(runDir, 'records'));
    // A damaged line of an answer as it is now is refused (named), never taken as absent and redone.
    const existing = await readDiagnosticsLines(runDir, { repair: true, current: new Map(scored.map((r) => [r.key, recordFingerprint(settingsFingerprint, r)])) });
    const current = (r: RunItemRecord) => {
      const line = existing.get(r.key);
      return line !== undefined && line.fingerprint === recordFingerprint(settingsFingerprint, r) && line.diagnostics.failed.length === 0;
    };
    const todo = scored.filter((r) => !current(r));
    log(`hisrag diagnose ${runDir}: ${scored.length} answers, ${scored.length - todo.length} already diagnosed, ${todo.length} to go`);
    log(`claim extractor: ${extractor.name}${extractor.standIn ? ` (${extractor.describe().standIn})` : ''}`);
    log(`claim checker: ${checker.name}${checker.standIn ? ` (${checker.describe().standIn})` : ''}, ${checker.claimsPerCall} claims per call`);
    log(`prefilter: ${settings.prefilter}${settings.prefilter === 'none' ? ' (all pairs, as RAGChecker)' : `, top ${settings.topChunks} passages per claim`}; ${Object.entries(described).map(([label, how]) => `${label}: ${how}`).join('; ') || 'no retrievers'}`);

    const todoKeys = new Set(todo.map((r) => r.key));
    const byItem = [...groupBy(scored, (r) => `${r.benchmark}:${r.itemId}`)].map(([itemKey, all]) => ({ item: items.get(itemKey)!, all, todo: all.filter((r) => todoKeys.has(r.key)) }));
    const signal = options.signal;
    const context: DiagnosisContext = {
      extractor,
      checker,
      store,
      settings: { prefilter: settings.prefilter, topChunks: settings.topChunks },
      scorerFor: (record) => scorers.get(record.retriever ?? '') ?? lexicalPairScorer(),
      ...(signal ? { signal } : {}),
    };
    const { fresh, fatal } = await diagnoseItems(byItem.filter((entry) => entry.todo.length > 0), context, {
      file: diagnosticsFile(runDir, 'records'),
      settingsFingerprint,
      concurrency: settings.concurrency,
      progress: options.progress ?? false,
    });
    const lines = new Map([...existing, ...fresh]);
    const sent = [...fresh.values()].map((line) => line.diagnostics.diagnosticsCost);
    state.spent = await sentTotals(runDir);
    log(`sent: ${sent.reduce((n, c) => n + c.extractorCallsSent, 0)} extractor and ${sent.reduce((n, c) => n + c.checkerCallsSent, 0)} checker calls in this invocation (${state.spent.checkerCalls} checker calls for this run directory so far; the rest came from the cache)`);
    const diagnosedNow = scored.filter((r) => {
      const line = lines.get(r.key);
      return line !== undefined && line.fingerprint === recordFingerprint(settingsFingerprint, r);
    });
    const done = diagnosedNow.length;
    const failedChecks = diagnosedNow.filter((r) => lines.get(r.key)!.diagnostics.failed.length > 0).length;
    const hint = `${done}/${scored.length} answers diagnosed in ${runDir}; finish with: hisrag diagnose ${runDir}`;
    const totals = { diagnosed: done, withFailedChecks: failedChecks, toDiagnose: scored.length };
    if (fatal || signal?.aborted || done < scored.length) await atomicWriteJson(diagnosticsFile(runDir, 'state'), { ...state, totals });
    if (fatal) {
      if (fatal instanceof Error) fatal.message += `\n(${hint})`;
      throw fatal;
    }
    if (signal?.aborted) throw new InterruptedError(`interrupted; ${hint}`);
    const finished: DiagnosticsState = { ...state, complete: true, finishedAt: new Date().toISOString(), totals };
    await atomicWriteJson(diagnosticsFile(runDir, 'state'), finished);
    await mergeIntoItems(runDir, settingsFingerprint, lines, log);
    if (failedChecks > 0) log(`${failedChecks} answers have failed checks (their affected metrics are left out and counted); run hisrag diagnose ${runDir} again to retry them`);
    return { diagnosed: done, toDiagnose: scored.length, newlyDiagnosed: fresh.size };
  } finally {
    store.close();
    await close();
  }
}

/**
 * Diagnoses the items, `concurrency` at a time, appending each item's lines to `file` as it finishes.
 * The first error stops further items from starting and is returned, not thrown, beside the lines written.
 */
async function diagnoseItems(work: { item: BenchmarkItem; all: RunItemRecord[]; todo: RunItemRecord[] }[], context: DiagnosisContext, options: { file: string; settingsFingerprint: string; concurrency: number; progress: boolean }): Promise<{ fresh: Map<string, DiagnosticsLine>; fatal: unknown }> {
  const { signal } = context;
  const labels = new LabelService(context);
  const progress = createProgress({ label: 'diagnoses', total: work.reduce((n, entry) => n + entry.todo.length, 0), silent: !options.progress });
  const appender = await JsonlAppender.open(options.file);
  let chain: Promise<void> = Promise.resolve();
  const fresh = new Map<string, DiagnosticsLine>();
  let stop = false;
  let fatal: unknown;
  let withFailures = 0;
  const limit = pLimit(options.concurrency);
  try {
    await Promise.allSettled(
      work.map((entry) =>
        limit(async () => {
          if (stop || signal?.aborted) return;
          try {
            const diagnosed = await diagnoseItem(entry.item, entry.all, entry.todo, context, labels);
            const lines: DiagnosticsLine[] = [];
            for (const r of entry.todo) {
              const diagnostics = diagnosed.get(r.key);
              if (!diagnostics) continue;
              if (diagnostics.failed.length) withFailures++;
              lines.push({ key: r.key, fingerprint: recordFingerprint(options.settingsFingerprint, r), diagnostics });
            }
            for (const line of lines) fresh.set(line.key, line);
            chain = chain.then(() => appender.append(lines));
            await chain;
            progress.tick(lines.length, { 'failed checks': withFailures });
          } catch (error) {
            if (signal?.aborted) return;
            fatal ??= error;
            stop = true;
          }
        }),
      ),
    );
  } finally {
    await chain;
    await appender.close();
    progress.stop();
  }
  return { fresh, fatal };
}

/**
 * Writes each record's current diagnosis into items.jsonl, atomically. When items.jsonl changes meanwhile
 * (a run still answering) the merge waits for the next diagnosis: results read diagnostics.jsonl anyway.
 */
async function mergeIntoItems(runDir: string, settingsFingerprint: string, lines: Map<string, DiagnosticsLine>, log: (line: string) => void): Promise<void> {
  const path = runFile(runDir, 'items');
  const before = await stat(path);
  const text = await readFile(path, 'utf8');
  const rows = text.split('\n');
  const lastIndex = new Map<string, number>();
  // Each line checked by the item schema, but written back as it was (the parsed record has defaults filled in).
  const parsed = rows.map((row, i) => {
    const entry = jsonlEntries(row)[0];
    const checked = entry && 'value' in entry ? RunItemRecordSchema.safeParse(entry.value) : undefined;
    if (!entry || !('value' in entry) || !checked?.success) return undefined; // a torn last line stays as it is
    lastIndex.set(checked.data.key, i);
    return { written: entry.value as Record<string, unknown>, record: checked.data };
  });
  const out = rows.map((row, i) => {
    const value = parsed[i];
    if (!value) return row;
    const { diagnostics: _old, ...rest } = value.written;
    const line = lines.get(value.record.key);
    if (lastIndex.get(value.record.key) === i && line && line.fingerprint === recordFingerprint(settingsFingerprint, value.record)) {
      return JSON.stringify({ ...rest, diagnostics: line.diagnostics });
    }
    return _old === undefined ? row : JSON.stringify(rest);
  });
  const now = await stat(path);
  if (now.size !== before.size || now.mtimeMs !== before.mtimeMs) {
    log(`items.jsonl changed while diagnosing (a run still answering?): diagnostics stay in diagnostics.jsonl; run hisrag diagnose again when it is done`);
    return;
  }
  await atomicWrite(path, out.join('\n'));
}
