import { DataFileError } from '../errors.js';
import { readRunConfig } from '../runFiles/runConfig.js';
import { assertRunDirectory, readRunRecords, runFile } from '../runFiles/runDir.js';
import type { RunSummary } from '../runFiles/summary.js';
import { readRunSummaryFile } from '../runFiles/summaryFile.js';
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
  const summary = await readRunSummaryFile(runDir);
  if (!summary) throw new DataFileError(`${runFile(runDir, 'summary')}: no such file; run \`hisrag report ${runDir}\` first`);
  return summary;
}

