import { checkJudge, type JudgeCheck } from '../analysis/judgeCheck.js';
import { readRunLabels } from '../runFiles/labels.js';
import { loadRun } from '../results/loadRun.js';

/** `hisrag judges <run-dir>`: the run's judge checked against the human labels kept beside its answers. */
export async function checkRunJudge(runDir: string): Promise<JudgeCheck> {
  const run = await loadRun(runDir);
  const labels = await readRunLabels(run.dir);
  const { scoring } = run.config;
  return checkJudge(run.records, labels, {
    baseline: scoring.baseline,
    ...(scoring.cluster !== undefined ? { cluster: scoring.cluster } : {}),
    resamples: scoring.bootstrapResamples,
    seed: run.config.seed,
    judgeName: 'run judge',
  });
}
