/**
 * The diagnostics' prefilter against RAGChecker's all-pairs computation, on the same answers:
 * answers the offline diagnostics demo (experiments/demo-diagnostics.yaml, or --config) once,
 * diagnoses two copies of that run directory — the default settings and `prefilter: none` (every
 * claim against every passage, as RAGChecker does) — and prints, per condition, the checker calls
 * per answer of each against RAGChecker's (k + 1)·(⌈|R|/5⌉ + ⌈|G|/5⌉), and every claim metric of
 * both with the largest difference.
 *
 *   node --import tsx scripts/bench-diagnostics.ts [--config experiments/demo-diagnostics.yaml] [--k 100] [--set topChunks=3]
 *
 * Offline the checker is the lexical stand-in (and the extractor sentences), so this measures the
 * prefilter's approximation, not a model's labels; with `--set checker=…` the same script measures
 * it against a real checker endpoint.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadExperimentConfig } from '../src/config/load.js';
import { loadRun } from '../src/results/loadRun.js';
import { diagnoseRun } from '../src/app/diagnose.js';
import { CLAIM_METRICS } from '../src/runFiles/diagnosis.js';
import { runExperiment } from '../src/app/runExperiment.js';
import type { RunSummary } from '../src/runFiles/summary.js';
import { renderTextTable } from '../src/report/table.js';

const { values } = parseArgs({
  options: {
    config: { type: 'string', default: 'experiments/demo-diagnostics.yaml' },
    k: { type: 'string', default: '10,50,100' },
    set: { type: 'string', multiple: true, default: [] },
    keep: { type: 'boolean', default: false },
  },
});

const work = mkdtempSync(join(tmpdir(), 'hisrag-bench-diagnostics-'));
const config = await loadExperimentConfig(values.config!, [`retrieval.k=[${values.k}]`, `output=${join(work, 'runs')}`]);
// The answers once; the diagnostics section is left to the two diagnoses below.
delete (config as { diagnostics?: unknown }).diagnostics;
const run = await runExperiment({ config, runId: 'answers' });
const copies = { default: join(work, 'runs', 'default'), allPairs: join(work, 'runs', 'all-pairs') };
cpSync(run.runDir, copies.default, { recursive: true });
cpSync(run.runDir, copies.allPairs, { recursive: true });

const started = Date.now();
const withPrefilter = await diagnoseRun(copies.default, { overrides: values.set });
const prefilterMs = Date.now() - started;
const allPairsStarted = Date.now();
const allPairs = await diagnoseRun(copies.allPairs, { overrides: [...values.set!, 'prefilter=none'] });
const allPairsMs = Date.now() - allPairsStarted;

// Passages in the final prompt per answer: a refiner or a method may place far fewer than k.
const passages = new Map<string, number[]>();
for (const r of (await loadRun(copies.default)).records) passages.set(`${r.model}|${r.condition}`, [...(passages.get(`${r.model}|${r.condition}`) ?? []), r.contextIds.length]);
const meanPassages = (key: string) => { const list = passages.get(key) ?? []; return list.reduce((x, y) => x + y, 0) / (list.length || 1); };
const deepest = Math.max(...values.k!.split(',').map(Number));

const cellsOf = (summary: RunSummary) => new Map(summary.cells.map((c) => [`${c.model}|${c.condition}`, c]));
const a = cellsOf(withPrefilter.summary);
const b = cellsOf(allPairs.summary);
const rows: string[][] = [];
let worst = { diff: 0, where: '' };
let worstRatio = 0;
for (const [key, cell] of a) {
  const other = b.get(key)!;
  const d = cell.diagnostics!;
  const o = other.diagnostics!;
  if (cell.k === null) continue;
  const ratio = d.checkerCalls! / d.allPairsCalls!;
  // RAGChecker's cost at k: conditions whose prompts hold (nearly) k passages.
  if (cell.k === deepest && meanPassages(key) >= 0.9 * deepest) worstRatio = Math.max(worstRatio, ratio);
  let maxDiff = 0;
  let maxMetric = '';
  for (const metric of CLAIM_METRICS) {
    const x = d.claims[metric]?.mean;
    const y = o.claims[metric]?.mean;
    if (x == null || y == null) continue;
    const diff = Math.abs(x - y);
    if (diff > maxDiff) [maxDiff, maxMetric] = [diff, metric];
    if (diff > worst.diff) worst = { diff, where: `${cell.condition} ${metric}` };
  }
  rows.push([
    cell.condition,
    meanPassages(key).toFixed(1),
    d.checkerCalls!.toFixed(1),
    o.checkerCalls!.toFixed(1),
    d.allPairsCalls!.toFixed(1),
    `${(100 * ratio).toFixed(1)}%`,
    maxDiff.toFixed(2),
    maxMetric,
  ]);
}
console.log(`answers: ${run.summary.totals.items} (${config.name}, k = ${values.k}); settings: ${JSON.stringify(withPrefilter.summary.diagnostics?.prefilter)} prefilter, top ${JSON.stringify(withPrefilter.summary.diagnostics?.topChunks)}${values.set!.length ? `, ${values.set!.join(' ')}` : ''}`);
console.log(renderTextTable(['condition', 'passages in prompt', 'checker calls/answer (prefilter)', 'checker calls/answer (prefilter: none)', 'RAGChecker all pairs', 'prefilter ÷ all pairs', 'largest metric gap (points)', 'metric'], rows));
console.log(`\nat k = ${deepest} (conditions whose prompts hold ≥ 90% of k passages): prefilter calls ≤ ${(100 * worstRatio).toFixed(1)}% of all pairs; largest gap over every condition and metric: ${worst.diff.toFixed(2)} points (${worst.where})`);
console.log(`diagnosis time: prefilter ${(prefilterMs / 1000).toFixed(1)} s, all pairs ${(allPairsMs / 1000).toFixed(1)} s`);
console.log('\nclaim metrics (prefilter | all pairs):');
const metricRows: string[][] = [];
for (const [key, cell] of a) {
  const other = b.get(key)!;
  metricRows.push([cell.condition, ...CLAIM_METRICS.map((m) => `${cell.diagnostics!.claims[m]?.mean?.toFixed(1) ?? '–'}|${other.diagnostics!.claims[m]?.mean?.toFixed(1) ?? '–'}`)]);
}
console.log(renderTextTable(['condition', ...CLAIM_METRICS], metricRows));
if (!values.keep) rmSync(work, { recursive: true, force: true });
else console.log(`run directories kept in ${work}`);
