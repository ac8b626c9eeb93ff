import type { JudgeCheckSummary } from '../runFiles/summary.js';
import { loadRun } from '../results/loadRun.js';

/** `hisrag judges <run-dir>`: the run's judge checked against the human labels kept beside its answers (undefined: the run has none). */
export async function checkRunJudge(runDir: string): Promise<JudgeCheckSummary | undefined> {
  return (await loadRun(runDir)).summary.judgeCheck;
}
