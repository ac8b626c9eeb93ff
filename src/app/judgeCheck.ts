import { panelJudgeAgreement, type JudgedScore } from '../analysis/judgeCheck.js';
import { loadRun, type LoadedRun } from '../results/loadRun.js';
import { listPanelJudges, readJudgeVerdicts } from '../runFiles/judgeVerdicts.js';
import { readRunLabels } from '../runFiles/labelFiles.js';
import type { JudgeCheckSummary } from '../runFiles/summary.js';
import { scoreRubricVerdicts } from '../scoring/scoreItem.js';
import { labelTargets } from './labelExchange.js';

/** `hisrag judges`: the run's judge, each panel judge and their majority against the human labels (if any). */
export async function checkRunJudge(runDir: string): Promise<JudgeCheckSummary | undefined> {
  const run = await loadRun(runDir);
  const check = run.summary.judgeCheck;
  const panel = await listPanelJudges(run.dir);
  if (!check || panel.length === 0) return check;
  const labels = await readRunLabels(run.dir);
  const options = { resamples: run.config.scoring.bootstrapResamples, seed: run.config.seed };
  // As for the run's own judge: each question's first sample, the answers scored.
  const firstSamples = new Set(run.records.filter((r) => (r.sample ?? 0) === 0).map((r) => r.key));
  const scored = (entries: Iterable<[string, JudgedScore & { status: string }]>) => new Map([...entries].filter(([key, s]) => firstSamples.has(key) && s.status === 'scored' && s.score !== null));
  const panels = new Map<string, Map<string, JudgedScore>>([['judge', scored(run.records.map((r) => [r.key, r.score]))]]);
  for (const name of panel) panels.set(name, scored((await readJudgeVerdicts(run.dir, name)).map((v) => [v.key, v.score])));
  const rows = panel.flatMap((name) => panelJudgeAgreement(name, panels.get(name)!, labels, options));
  const majority = await majorityVerdicts(run, panels);
  return { ...check, agreement: [...check.agreement, ...rows, ...panelJudgeAgreement(`majority(${[...panels.keys()].join(',')})`, majority, labels, options)] };
}

/**
 * The panel's majority verdict per answer scored by every judge of the panel (the run's own and each
 * in `judges/`): a rubric item is hit when more than half the judges mark it hit (a tie is a miss),
 * scored by the benchmark's rubric rule; an answer a rule scored without a judge keeps that score.
 */
async function majorityVerdicts(run: LoadedRun, panels: Map<string, Map<string, JudgedScore>>): Promise<Map<string, JudgedScore>> {
  const targets = await labelTargets(run.config);
  const judgesOf = [...panels.values()];
  const out = new Map<string, JudgedScore>();
  for (const record of run.records) {
    const scores = judgesOf.map((p) => p.get(record.key));
    if (scores.some((s) => s === undefined)) continue;
    const rubric = targets.get(`${record.benchmark}:${record.itemId}`)?.rubric ?? [];
    if (!rubric.length || scores.some((s) => !s!.verdicts)) {
      if (scores.every((s) => s!.score === scores[0]!.score)) out.set(record.key, { score: scores[0]!.score });
      continue;
    }
    const verdicts = Object.fromEntries(rubric.map((item) => [item.key, (scores.filter((s) => s!.verdicts![item.key] === 1).length * 2 > scores.length ? 1 : 0) as 0 | 1]));
    out.set(record.key, { score: scoreRubricVerdicts(rubric, verdicts, { compat: run.config.scoring.compat, strayLines: 0 }).score, verdicts });
  }
  return out;
}
