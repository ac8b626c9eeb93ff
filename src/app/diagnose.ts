import type { RunSummary } from '../runFiles/summary.js';
import { diagnoseAnswers, prepareRunDiagnosis, type DiagnoseOptions, type DiagnosisCounts } from '../diagnostics/diagnoseRun.js';
import { regenerateReport } from './rewriteReport.js';
import { withRunLock } from './runLock.js';

export interface DiagnoseResult extends DiagnosisCounts {
  runDir: string;
  /** The run's summary with the diagnostics (as written to summary.json). */
  summary: RunSummary;
  reportPath: string;
}

/** `hisrag diagnose`: diagnoses a run's answers and rewrites its records, summary and report with them; resumable. */
export async function diagnoseRun(runDir: string, options: DiagnoseOptions = {}): Promise<DiagnoseResult> {
  const diagnosis = await prepareRunDiagnosis(runDir, options);
  // It rewrites items.jsonl and the summary: one writer per run directory, as a run.
  return withRunLock(diagnosis.runDir, options.log, async () => {
    const counts = await diagnoseAnswers(diagnosis, options);
    // The one writer of summary.json, summary.csv and report.html after a run (the results API attaches the diagnoses).
    const { summary, reportPath } = await regenerateReport(diagnosis.runDir);
    return { runDir: diagnosis.runDir, summary, reportPath, ...counts };
  });
}
