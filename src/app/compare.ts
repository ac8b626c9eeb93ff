import { readFile } from 'node:fs/promises';
import type { ExperimentConfig } from '../config/experiment.js';
import { validateExperimentConfig } from '../config/load.js';
import { DataFileError, formatZodIssues } from '../errors.js';
import { assertRunDirectory, readRunRecords, runFile } from '../runFiles/runDir.js';
import { RunSummarySchema, type RunSummary } from '../runFiles/summary.js';
import { compareRunData } from '../report/compare.js';

/**
 * `hisrag compare`: two runs side by side, matched by model label and condition name, with the paired
 * difference B − A on the questions both scored (`compareRunData`). Reads each run's summary.json,
 * config and records.
 */
export async function compareRuns(runA: string, runB: string, options: { against?: string } = {}): Promise<ReturnType<typeof compareRunData>> {
  const [a, b] = await Promise.all([readRunSummary(runA), readRunSummary(runB)]);
  const [configA, configB] = await Promise.all([readRunConfig(runA), readRunConfig(runB)]);
  const [recordsA, recordsB] = await Promise.all([readRunRecords(runA), readRunRecords(runB)]);
  return compareRunData({ dir: runA, summary: a, config: configA, records: recordsA }, { dir: runB, summary: b, config: configB, records: recordsB }, options);
}

async function readRunSummary(runDir: string): Promise<RunSummary> {
  assertRunDirectory(runDir);
  const path = runFile(runDir, 'summary');
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new DataFileError(`${path}: cannot read the run summary (${(error as Error).message}); run \`hisrag report ${runDir}\` first`);
  }
  const parsed = RunSummarySchema.safeParse(value);
  if (!parsed.success) throw new DataFileError(`${path}: ${formatZodIssues(parsed.error)}`);
  return parsed.data;
}

async function readRunConfig(runDir: string): Promise<ExperimentConfig> {
  const path = runFile(runDir, 'config');
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new DataFileError(`${path}: cannot read the run's config (${(error as Error).message})`);
  }
  return validateExperimentConfig(value, path);
}

