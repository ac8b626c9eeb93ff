import { DataFileError } from '../errors.js';
import { readRunConfig } from '../config/runConfig.js';
import { assertRunDirectory, readRunRecords, runFile } from '../runFiles/runDir.js';
import type { RunSummary } from '../runFiles/summary.js';
import { readRunSummaryFile } from '../runFiles/summaryFile.js';
import { readLabelInclusion, readRunLabels } from '../runFiles/labelFiles.js';
import { compareRunData, type RunComparison } from '../analysis/compare.js';
import { comparisonText } from '../report/compare.js';

/** `hisrag compare`: two runs matched by model and condition, B − A on the questions both scored (and corrected). */
export async function compareRuns(runA: string, runB: string, options: { against?: string } = {}): Promise<RunComparison & { text: string }> {
  const [a, b] = await Promise.all([readRunSummary(runA), readRunSummary(runB)]);
  const [configA, configB] = await Promise.all([readRunConfig(runA), readRunConfig(runB)]);
  const [recordsA, recordsB] = await Promise.all([readRunRecords(runA), readRunRecords(runB)]);
  const [labelsA, labelsB] = await Promise.all([readRunLabels(runA), readRunLabels(runB)]);
  const [inclusionA, inclusionB] = await Promise.all([readLabelInclusion(runA), readLabelInclusion(runB)]);
  const comparison = compareRunData(
    { dir: runA, summary: a, config: configA, records: recordsA, labels: labelsA, labelInclusion: inclusionA },
    { dir: runB, summary: b, config: configB, records: recordsB, labels: labelsB, labelInclusion: inclusionB },
    options,
  );
  return { ...comparison, text: comparisonText(comparison) };
}

async function readRunSummary(runDir: string): Promise<RunSummary> {
  assertRunDirectory(runDir);
  const summary = await readRunSummaryFile(runDir);
  if (!summary) throw new DataFileError(`${runFile(runDir, 'summary')}: no such file; run \`hisrag report ${runDir}\` first`);
  return summary;
}

