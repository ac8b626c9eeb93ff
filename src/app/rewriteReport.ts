import type { RunSummary } from '../runFiles/summary.js';
import { loadRun } from '../results/loadRun.js';
import { writeRunOutputs } from './runOutputs.js';

/** `hisrag report`: re-reads a run directory and rewrites summary.json, summary.csv and report.html. */
export async function regenerateReport(runDir: string): Promise<{ summary: RunSummary; reportPath: string }> {
  // The results API reads runs for notebooks too: one reader, one summary, for every consumer.
  const run = await loadRun(runDir);
  const reportPath = await writeRunOutputs(run.dir, run);
  return { summary: run.summary, reportPath };
}
