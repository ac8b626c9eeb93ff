/**
 * Writes large run directories from the demo's data, for `hisrag view`'s speed and memory figures:
 * the demo's 14 questions replicated into `--items` questions (ids, questions and answers suffixed
 * per copy, scores varied by a seeded PRNG), answered under the demo's conditions (closed-book,
 * rag@10, 20, 50, 100, or those `--conditions` names) with the demo's real records — prompts,
 * 10–100 passages, traces — so each answer weighs what a real one does. Each run gets the
 * summary.json the runner would write (the project's `summarizeRun`), so it is a finished run.
 * Default: 4,000 questions × 5 = 20,000 answers.
 *
 *   npx tsx scripts/generate-large-run.ts [--out /tmp/hisrag-large/runs/large] [--items 4000] [--source <demo run dir>]
 *   npx tsx scripts/generate-large-run.ts --runs 50 --answers 20000 --conditions closed-book,rag@10,rag@20 --out /tmp/hisrag-scale/runs
 *
 * With `--runs n`, `--out` is the folder of runs: the first run is generated, the other n − 1 are
 * copies of it under their own ids (`run-01` …: their own files, so each is indexed on its own).
 * `--answers` sets the answers per run instead of `--items` (questions = answers ÷ conditions).
 * Lines are written from one template per demo record (the per-copy values spliced in), streamed:
 * about as fast as the disk writes. Without --source it runs the demo first (offline, seconds) in
 * a folder next to --out. The runs' config points at a benchmark file written beside them, so
 * references are searchable in the viewer.
 */
import { copyFileSync, createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readRunRecords } from '../src/runFiles/runDir.js';
import type { RunItemRecord } from '../src/runFiles/itemRecord.js';
import { summarizeRun } from '../src/analysis/summary.js';
import { validateExperimentConfig } from '../src/config/load.js';
import { summaryOptionsOf } from '../src/results/loadRun.js';
import { demoConfigIn } from '../test/helpers/demoConfig.js';
import { runCli } from '../test/helpers/runCli.js';

export interface LargeRunOptions {
  /** The run directory to write. */
  out: string;
  /** Questions (default 4,000); or `answers`, the answers in all (questions = answers ÷ conditions). */
  items?: number;
  answers?: number;
  /** The demo's conditions to answer under (default all five). */
  conditions?: string[];
  /** A finished demo run to take the records from (default: the demo, run next to `out`). */
  source?: string;
  runId?: string;
}

/** A value spliced into a record's template. */
type Slot = 'itemId' | 'copy' | 'score';
const TOKEN: Record<Slot, string> = { itemId: '@@ITEM@@', copy: '@@COPY@@', score: '@@SCORE@@' };

/**
 * One demo record as text with the per-copy values left open: `parts[i]`, then the value of
 * `slots[i]`, … then the last part. The score is a JSON number: its token's quotes are cut.
 */
function templateOf(record: RunItemRecord): { parts: string[]; slots: Slot[] } {
  const templated = {
    ...record,
    key: `${record.model}|${record.condition}|${record.benchmark}:${TOKEN.itemId}`,
    itemId: TOKEN.itemId,
    question: `${record.question}${TOKEN.copy}`,
    response: record.response ? { ...record.response, text: `${record.response.text}${TOKEN.copy}` } : null,
    score: record.score.score === null ? record.score : { ...record.score, score: TOKEN.score, scoreRaw: TOKEN.score },
  };
  const text = JSON.stringify(templated).replaceAll(`"${TOKEN.score}"`, TOKEN.score);
  const parts: string[] = [];
  const slots: Slot[] = [];
  const pattern = /@@ITEM@@|@@COPY@@|@@SCORE@@/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    parts.push(text.slice(last, match.index));
    slots.push(match[0] === TOKEN.itemId ? 'itemId' : match[0] === TOKEN.copy ? 'copy' : 'score');
    last = match.index! + match[0].length;
  }
  parts.push(text.slice(last));
  return { parts, slots };
}

async function demoSource(out: string): Promise<string> {
  const work = join(dirname(dirname(out)), 'demo-source');
  const source = join(work, 'runs', 'demo');
  if (!existsSync(join(source, 'summary.json'))) {
    mkdirSync(work, { recursive: true });
    const result = await runCli(['run', demoConfigIn(work), '--run-id', 'demo', '--no-progress']);
    if (result.code !== 0) throw new Error(`the demo failed (exit ${result.code}):\n${result.stderr}`);
  }
  return source;
}

export async function generateLargeRun(options: LargeRunOptions): Promise<{ dir: string; answers: number; bytes: number }> {
  const out = resolve(options.out);
  const source = options.source ? resolve(options.source) : await demoSource(out);
  const runId = options.runId ?? 'large';
  const all = await readRunRecords(source);
  const config = JSON.parse(readFileSync(join(source, 'config.json'), 'utf8'));
  const manifest = JSON.parse(readFileSync(join(source, 'manifest.json'), 'utf8'));
  const sourceConditions: string[] = Array.isArray(manifest.conditions) ? manifest.conditions : [...new Set(all.map((r) => r.condition))];
  const conditions = options.conditions ?? sourceConditions;
  for (const c of conditions) if (!sourceConditions.includes(c)) throw new Error(`--conditions: ${c} is not a condition of ${source} (${sourceConditions.join(', ')})`);
  const records = all.filter((r) => conditions.includes(r.condition));
  // A stored config names its benchmarks as a list (`benchmarks`); older ones one `benchmark`.
  const benchmarkSpec = config.benchmarks?.[0] ?? config.benchmark;
  const benchmarkFile = resolve(benchmarkSpec.file);
  const questions = JSON.parse(readFileSync(benchmarkFile, 'utf8')) as { id: string; question: string; reference_answer?: string }[];
  const items = options.answers !== undefined ? Math.ceil(options.answers / conditions.length) : (options.items ?? 4000);
  const copies = Math.ceil(items / questions.length);
  mkdirSync(out, { recursive: true });

  // The benchmark: each question once per copy, with its own id.
  const benchmark: unknown[] = [];
  for (let c = 0; c < copies; c++) {
    for (const q of questions) {
      if (benchmark.length >= items) break;
      benchmark.push({ ...q, id: `${q.id}-c${c}`, question: c ? `${q.question}（第${c}份）` : q.question, ...(q.reference_answer ? { reference_answer: `${q.reference_answer}（第${c}份）` } : {}) });
    }
  }
  const benchmarkOut = join(dirname(out), '..', `${runId}-benchmark.json`);
  writeFileSync(benchmarkOut, JSON.stringify(benchmark));
  const generatedBenchmark = { ...benchmarkSpec, file: resolve(benchmarkOut) };
  const runConfig = { ...config, name: runId, ...(config.benchmarks ? { benchmarks: [generatedBenchmark] } : { benchmark: generatedBenchmark }) };
  writeFileSync(join(out, 'config.json'), JSON.stringify(runConfig, null, 2));

  // A seeded LCG: the same run every time.
  let state = 7;
  const draw = (lo: number, hi: number) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return lo + (state % (hi - lo + 1));
  };
  const byItem = new Map<string, { record: RunItemRecord; template: ReturnType<typeof templateOf> }[]>();
  for (const r of records) byItem.set(r.itemId, [...(byItem.get(r.itemId) ?? []), { record: r, template: templateOf(r) }]);
  const stream = createWriteStream(join(out, 'items.jsonl'), { highWaterMark: 1 << 22 });
  // What the summary needs of each answer: the demo record with this copy's ids and score (its texts shared, not copied).
  const summarised: RunItemRecord[] = [];
  let answers = 0;
  let bytes = 0;
  let written = 0;
  let pending = '';
  const flush = async () => {
    if (!stream.write(pending)) await new Promise<void>((res) => stream.once('drain', () => res()));
    pending = '';
  };
  for (let c = 0; c < copies && written < items; c++) {
    for (const q of questions) {
      if (written >= items) break;
      written++;
      const itemId = `${q.id}-c${c}`;
      const suffix = c ? `（第${c}份）` : '';
      for (const { record: r, template } of byItem.get(q.id) ?? []) {
        const score = r.score.score === null || c === 0 ? r.score.score : Math.max(0, Math.min(100, r.score.score + draw(-25, 25)));
        const values: Record<Slot, string> = { itemId, copy: suffix, score: String(score) };
        let line = template.parts[0]!;
        for (let i = 0; i < template.slots.length; i++) line += values[template.slots[i]!] + template.parts[i + 1]!;
        line += '\n';
        bytes += Buffer.byteLength(line);
        answers++;
        pending += line;
        if (pending.length > 1 << 20) await flush();
        summarised.push({ ...r, key: `${r.model}|${r.condition}|${r.benchmark}:${itemId}`, itemId, score: { ...r.score, score, scoreRaw: score } });
      }
    }
  }
  await flush();
  await new Promise<void>((res, rej) => stream.end((error?: Error | null) => (error ? rej(error) : res())));
  const runManifest = { ...manifest, runId, experiment: runId, conditions, answers: { done: answers, total: answers, failed: 0 }, complete: true };
  writeFileSync(join(out, 'manifest.json'), JSON.stringify(runManifest, null, 2));
  // summary.json after items.jsonl, as the runner writes it: the viewer lists the run from it at once.
  const options_ = summaryOptionsOf(validateExperimentConfig(runConfig, join(out, 'config.json')), runManifest, summarised);
  writeFileSync(join(out, 'summary.json'), JSON.stringify(summarizeRun(summarised, options_), null, 2));
  return { dir: out, answers, bytes };
}

/**
 * `runs` run directories in `out` (`run-00` … ), `answersPerRun` answers each: the first generated,
 * the others copies of its files under their own ids, so that every run is its own file to index.
 */
export async function generateRuns(options: { out: string; runs: number; answers: number; conditions?: string[]; source?: string }): Promise<{ dirs: string[]; answers: number; bytes: number }> {
  const root = resolve(options.out);
  const name = (i: number) => `run-${String(i).padStart(2, '0')}`;
  const first = await generateLargeRun({ out: join(root, name(0)), answers: options.answers, conditions: options.conditions, source: options.source, runId: name(0) });
  const dirs = [first.dir];
  for (let i = 1; i < options.runs; i++) {
    const dir = join(root, name(i));
    mkdirSync(dir, { recursive: true });
    const config = JSON.parse(readFileSync(join(first.dir, 'config.json'), 'utf8'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, name: name(i) }, null, 2));
    copyFileSync(join(first.dir, 'items.jsonl'), join(dir, 'items.jsonl'));
    const manifest = JSON.parse(readFileSync(join(first.dir, 'manifest.json'), 'utf8'));
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, runId: name(i), experiment: name(i) }, null, 2));
    const summary = JSON.parse(readFileSync(join(first.dir, 'summary.json'), 'utf8'));
    writeFileSync(join(dir, 'summary.json'), JSON.stringify({ ...summary, experiment: name(i) }, null, 2));
    dirs.push(dir);
  }
  return { dirs, answers: first.answers * options.runs, bytes: first.bytes * options.runs };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      items: { type: 'string' },
      answers: { type: 'string' },
      runs: { type: 'string' },
      conditions: { type: 'string' },
      source: { type: 'string' },
    },
  });
  const started = Date.now();
  const conditions = values.conditions ? values.conditions.split(',').map((c) => c.trim()).filter(Boolean) : undefined;
  if (values.runs) {
    const result = await generateRuns({ out: values.out ?? '/tmp/hisrag-scale/runs', runs: Number(values.runs), answers: Number(values.answers ?? 20000), conditions, source: values.source });
    process.stdout.write(`${resolve(values.out ?? '/tmp/hisrag-scale/runs')}: ${result.dirs.length} runs, ${result.answers} answers, ${(result.bytes / 1e6).toFixed(0)} MB of items.jsonl (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  } else {
    const result = await generateLargeRun({ out: values.out ?? '/tmp/hisrag-large/runs/large', items: values.items ? Number(values.items) : undefined, answers: values.answers ? Number(values.answers) : undefined, conditions, source: values.source });
    process.stdout.write(`${result.dir}: ${result.answers} answers, ${(result.bytes / 1e6).toFixed(0)} MB of items.jsonl (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  }
}
