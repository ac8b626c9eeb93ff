/**
 * Writes a large run directory from the demo's data, for `hisrag view`'s speed and memory figures:
 * the demo's 14 questions replicated into `--items` questions (ids, questions and references
 * suffixed per copy, scores varied by a seeded PRNG), answered under the demo's five conditions
 * (closed-book, rag@10, 20, 50, 100) with the demo's real records — prompts, 10–100 passages,
 * traces — so each answer weighs what a real one does. Default: 4,000 questions × 5 = 20,000 answers.
 *
 *   npx tsx scripts/generate-large-run.ts [--out /tmp/hisrag-large/runs/large] [--items 4000] [--source <demo run dir>]
 *
 * Without --source it runs the demo first (offline, seconds) in a folder next to --out. The run's
 * config points at a benchmark file written beside it, so references are searchable in the viewer.
 */
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readRunRecords } from '../src/experiment/runDirectory.js';
import { demoConfigIn } from '../test/helpers/demoConfig.js';
import { runCli } from '../test/helpers/runCli.js';

export async function generateLargeRun(options: { out: string; items: number; source?: string }): Promise<{ dir: string; answers: number; bytes: number }> {
  const out = resolve(options.out);
  let source = options.source ? resolve(options.source) : null;
  if (!source) {
    const work = join(dirname(dirname(out)), 'demo-source');
    source = join(work, 'runs', 'demo');
    if (!existsSync(join(source, 'summary.json'))) {
      mkdirSync(work, { recursive: true });
      const result = await runCli(['run', demoConfigIn(work), '--run-id', 'demo', '--no-progress']);
      if (result.code !== 0) throw new Error(`the demo failed (exit ${result.code}):\n${result.stderr}`);
    }
  }
  const records = await readRunRecords(source);
  const config = JSON.parse(readFileSync(join(source, 'config.json'), 'utf8'));
  const manifest = JSON.parse(readFileSync(join(source, 'manifest.json'), 'utf8'));
  const benchmarkFile = resolve(config.benchmark.file);
  const questions = JSON.parse(readFileSync(benchmarkFile, 'utf8')) as { id: string; question: string; reference_answer?: string }[];
  const copies = Math.ceil(options.items / questions.length);
  mkdirSync(out, { recursive: true });

  // The benchmark: each question once per copy, with its own id.
  const benchmark: unknown[] = [];
  for (let c = 0; c < copies; c++) {
    for (const q of questions) {
      if (benchmark.length >= options.items) break;
      benchmark.push({ ...q, id: `${q.id}-c${c}`, question: c ? `${q.question}（第${c}份）` : q.question, ...(q.reference_answer ? { reference_answer: `${q.reference_answer}（第${c}份）` } : {}) });
    }
  }
  const benchmarkOut = join(dirname(dirname(out)), 'large-benchmark.json');
  writeFileSync(benchmarkOut, JSON.stringify(benchmark));
  writeFileSync(join(out, 'config.json'), JSON.stringify({ ...config, name: 'large', benchmark: { ...config.benchmark, file: resolve(benchmarkOut) } }, null, 2));

  // A seeded LCG: the same run every time.
  let state = 7;
  const draw = (lo: number, hi: number) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return lo + (state % (hi - lo + 1));
  };
  const stream = createWriteStream(join(out, 'items.jsonl'));
  let answers = 0;
  let bytes = 0;
  const byItem = new Map<string, typeof records>();
  for (const r of records) byItem.set(r.itemId, [...(byItem.get(r.itemId) ?? []), r]);
  let written = 0;
  for (let c = 0; c < copies && written < options.items; c++) {
    for (const q of questions) {
      if (written >= options.items) break;
      written++;
      const itemId = `${q.id}-c${c}`;
      for (const r of byItem.get(q.id) ?? []) {
        const score = r.score.score === null || c === 0 ? r.score.score : Math.max(0, Math.min(100, r.score.score + draw(-25, 25)));
        const record = {
          ...r,
          key: `${r.model}|${r.condition}|${r.benchmark}:${itemId}`,
          itemId,
          question: c ? `${r.question}（第${c}份）` : r.question,
          response: r.response ? { ...r.response, text: c ? `${r.response.text}（第${c}份）` : r.response.text } : null,
          score: { ...r.score, score, scoreRaw: score },
        };
        const line = JSON.stringify(record) + '\n';
        bytes += Buffer.byteLength(line);
        answers++;
        if (!stream.write(line)) await new Promise<void>((res) => stream.once('drain', () => res()));
      }
    }
  }
  await new Promise<void>((res, rej) => stream.end((error?: Error | null) => (error ? rej(error) : res())));
  writeFileSync(
    join(out, 'manifest.json'),
    JSON.stringify({ ...manifest, runId: 'large', experiment: 'large', answers: { done: answers, total: answers, failed: 0 }, complete: true }, null, 2),
  );
  return { dir: out, answers, bytes };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { out: { type: 'string', default: '/tmp/hisrag-large/runs/large' }, items: { type: 'string', default: '4000' }, source: { type: 'string' } } });
  const started = Date.now();
  const result = await generateLargeRun({ out: values.out!, items: Number(values.items), source: values.source });
  process.stdout.write(`${result.dir}: ${result.answers} answers, ${(result.bytes / 1e6).toFixed(0)} MB of items.jsonl (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
}
