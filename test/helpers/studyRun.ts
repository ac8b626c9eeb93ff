import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadExperimentConfig } from '../../src/config/load.js';
import { InputError } from '../../src/errors.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import { estimateRun } from '../../src/app/dryRun.js';
import { latexTables } from '../../src/report/latex.js';
import { readRunRecords, runFile } from '../../src/runFiles/runDir.js';
import type { RunSummary } from '../../src/runFiles/summary.js';
import { readRunSummaryFile } from '../../src/runFiles/summaryFile.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { RunStore } from '../../src/viewer/runStore.js';
import { mulberry32 } from '../../src/models/fixture/seededRandom.js';
import { demoQuestions, verdictKeys } from './labelRun.js';
import { QUESTIONS, studyAnnotators, studyConfig, type StudyFactors } from './studyFactors.js';
import type { Surfaces } from './surfaceNumbers.js';

export type StudyOutcome =
  | { refused: InputError; answers: number }
  | { runDir: string; summary: RunSummary; records: RunItemRecord[]; figures: { name: string; spec: Record<string, unknown> }[]; surfaces: Surfaces; timings: Record<string, number> };

/**
 * Labels of an annotator for every other question of every model × condition (sample 0), keyed as
 * the run keys its answers: each rubric item marked at random (seeded), differently per annotator.
 */
function writeLabels(cells: { model: string; condition: string }[], file: string, seed: number): void {
  const next = mulberry32(seed);
  const lines = cells.flatMap(({ model, condition }) =>
    demoQuestions()
      .slice(0, QUESTIONS)
      .filter((_, i) => i % 2 === 0)
      .map((q) => ({ key: `${model}|${condition}|prohist:${q.id}`, verdicts: Object.fromEntries(verdictKeys(q.rubrics).map((k) => [k, next() < 0.5 ? 1 : 0])) })),
  );
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}

/** How many answers a run directory holds (0 where it has none, or is gone). */
function answersIn(runDir: string): number {
  const items = join(runDir, 'items.jsonl');
  return existsSync(items) ? readFileSync(items, 'utf8').split('\n').filter((line) => line.trim()).length : 0;
}

/** Every Vega-Lite spec (an object with a `$schema`) inside a value, by where it is found: the viewer's charts, whatever their shape. */
function vegaLiteSpecs(value: unknown, path: string): { name: string; spec: Record<string, unknown> }[] {
  if (!value || typeof value !== 'object') return [];
  if ('$schema' in value) return [{ name: path, spec: value as Record<string, unknown> }];
  return Object.entries(value).flatMap(([key, child]) => vegaLiteSpecs(child, `${path} ${key}`));
}

/**
 * Runs one drawn study in-process, as a user would: `hisrag run` (the terminal lines captured; label
 * files named in the config, as `labels:`, imported when the answers are in), and reads every
 * surface: summary.json, report.html, summary.csv, the saved figures, the tables `hisrag export
 * --latex` writes (`latexTables`: its figures are the saved ones, not rendered again here) and the
 * viewer's run page with its charts. A refusal (exit 2: `InputError`) is returned.
 */
export async function runStudy(factors: StudyFactors, shared: string, root: string, seed: number): Promise<StudyOutcome> {
  const dir = mkdtempSync(join(root, 'study-'));
  const file = studyConfig(factors, shared, dir, seed);
  const terminal: string[] = [];
  const timings: Record<string, number> = {};
  let at = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    timings[name] = now - at;
    at = now;
  };
  let runDir: string;
  try {
    let config = await loadExperimentConfig(file);
    const annotators = studyAnnotators(factors, dir);
    if (annotators.length) {
      // The keys of the answers to label, from the dry run's plan (no model called); imported by the run once its answers are in.
      const plan = await estimateRun(config);
      annotators.forEach((a, i) => writeLabels(plan.cells, a.file, seed + i));
      config = await loadExperimentConfig(studyConfig(factors, shared, dir, seed, annotators));
      lap('plan');
    }
    ({ runDir } = await runExperiment({ config, configFile: file, runId: 'run', log: (line) => terminal.push(line) }));
  } catch (error) {
    // A refusal comes before any call: whatever answers the run directory holds were answered all the same.
    if (error instanceof InputError) return { refused: error, answers: answersIn(join(dir, 'runs', 'run')) };
    throw error;
  }
  lap('run');
  const terminalText = terminal.join('\n');
  const summary = (await readRunSummaryFile(runDir))!;
  const figuresDir = join(runDir, 'figures');
  const figures = readdirSync(figuresDir)
    .filter((f) => f.endsWith('.vl.json'))
    .map((f) => ({ name: f.replace(/\.vl\.json$/, ''), spec: JSON.parse(readFileSync(join(figuresDir, f), 'utf8')) as Record<string, unknown> }));
  const latex = latexTables(summary);
  lap('read');
  const store = new RunStore([runDir], { cacheDir: join(dir, 'viewer-cache') });
  let viewer;
  try {
    await store.scan(true);
    viewer = (await store.run(store.ids()[0]!))!;
  } finally {
    store.close();
  }
  lap('viewer');
  const surfaces: Surfaces = { terminal: terminalText, reportHtml: readFileSync(runFile(runDir, 'report'), 'utf8'), csv: readFileSync(runFile(runDir, 'summaryCsv'), 'utf8'), latex, viewer };
  figures.push(...vegaLiteSpecs(viewer.charts, 'viewer'));
  return { runDir, summary, records: await readRunRecords(runDir), figures, surfaces, timings };
}
