import { basename, resolve } from 'node:path';
import type { ExperimentConfig } from '../config/experiment.js';
import { groupBy } from '../diagnostics/groupBy.js';
import { DataFileError } from '../errors.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import type { AnswerLabel } from '../runFiles/labels.js';
import type { JudgeCheckSummary, RunSummary } from '../runFiles/summary.js';
import { metricLabel, summaryMetric } from '../scoring/metrics.js';
import { adjustFamily, pairedDifference, salts } from '../statistics/run.js';
import { isScored, runStatistics } from './observations.js';
import { judgeCheckOf } from './summary.js';

/**
 * A paired Δ's bootstrap interval and its sign-flip p disagree about "no difference" at the
 * interval's level: the interval leaves 0 out while p > 1 − level, or holds 0 while p ≤ 1 − level.
 * They are two procedures: the sign-flip p is exact under exchangeability whatever the number of
 * clusters, while the percentile bootstrap is too narrow with few questions or clusters (it
 * ignores the n/(n − 1) of a variance and the skew a small sample leaves). Surfaces that show both
 * mark the row rather than let the interval read as significant; the p-value is the one to trust.
 */
export function intervalDisagreesWithTest(ciLow: number | null | undefined, ciHigh: number | null | undefined, p: number | null | undefined, level: number): boolean {
  if (ciLow == null || ciHigh == null || p == null || Number.isNaN(ciLow) || Number.isNaN(ciHigh) || Number.isNaN(p)) return false;
  const excludesZero = ciLow > 0 || ciHigh < 0;
  return excludesZero !== p <= 1 - level;
}

export interface ComparisonRow {
  model: string;
  condition: string;
  a: { mean: number | null; ciLow: number | null; ciHigh: number | null; n: number } | null;
  b: { mean: number | null; ciLow: number | null; ciHigh: number | null; n: number } | null;
  /** b − a, when both runs scored the cell. */
  diff: number | null;
  /**
   * B − A paired over the questions both runs scored (samples reduced per question): its interval
   * (two-stage bootstrap over clusters, then samples), the sign-flip test's p, and p adjusted by Holm
   * and Benjamini–Hochberg over `family` (every row with paired questions); null when none are shared.
   */
  paired: { n: number; meanDiff: number; ciLow: number; ciHigh: number; clusters: number | null; designEffect: number | null; p: number; pHolm: number; pBH: number; family: string } | null;
  /** Each run's figures corrected with its own human labels (PPI++), present when either run has labels: null on a side without labels for this cell. */
  corrected?: { a: CorrectedCell | null; b: CorrectedCell | null };
}

type Open = JudgeCheckSummary['means'][number]['judgeOnly'];

/** One run's cell, judge-only beside corrected with its labels (`analysis/judgeCheck` over `statistics/ppi`). */
export interface CorrectedCell {
  /** Answers judged and, of them, labelled. */
  n: number;
  labelled: number;
  mean: { judgeOnly: Open; ppiPlusPlus: Open };
  /** The judge's bias (judge − human) on the labelled answers. */
  bias: Open;
  /** Δ against the run's baseline, judge-only beside PPI++; null for the baseline itself or without labels on both sides. */
  delta: { baseline: string; labelled: number; judgeOnly: Open; ppiPlusPlus: Open } | null;
  synthetic: boolean;
}

/** One side of a comparison: the run directory as named, its summary, config and records (read by the caller, `app/compare.ts`). */
export interface ComparedRun {
  dir: string;
  summary: RunSummary;
  config: ExperimentConfig;
  records: RunItemRecord[];
  /** The run's human labels (`labels/`); none: no corrected figures for it. */
  labels?: readonly AnswerLabel[];
  /** The label draw's inclusion probability per question (`labels/sample.json`): labels weighted by 1/π. */
  labelInclusion?: ReadonlyMap<string, number> | undefined;
}

/** A run's judge checked against its labels, under the run's own baseline and interval settings (as its summary.json's `judgeCheck`). */
function runCheck(run: ComparedRun): JudgeCheckSummary | undefined {
  const scoring = run.config.scoring;
  return judgeCheckOf(run.records, { baseline: scoring.baseline, cluster: scoring.cluster, resamples: scoring.bootstrapResamples, seed: run.config.seed, labels: run.labels, labelInclusion: run.labelInclusion }).judgeCheck;
}

function correctedCell(check: JudgeCheckSummary | undefined, model: string, condition: string): CorrectedCell | null {
  const mean = check?.means.find((m) => m.model === model && m.condition === condition);
  if (!check || !mean) return null;
  const d = check.differences.find((x) => x.model === model && x.condition === condition);
  return {
    n: mean.n,
    labelled: mean.labelled,
    mean: { judgeOnly: mean.judgeOnly, ppiPlusPlus: mean.ppiPlusPlus },
    bias: mean.bias,
    delta: d ? { baseline: d.baseline, labelled: d.labelled, judgeOnly: d.judgeOnly, ppiPlusPlus: d.ppiPlusPlus } : null,
    synthetic: check.synthetic,
  };
}

/**
 * Two runs side by side by model and condition, with the paired B − A on the questions both scored
 * (sign-flip test, whole clusters flipped) and Holm / BH over every row compared.
 */
export function compareRunData(A: ComparedRun, B: ComparedRun, options: { against?: string } = {}) {
  const against = options.against;
  const [runA, runB] = [A.dir, B.dir];
  // One run against itself (`--against closed-book`): the summary's own differences, under its salts.
  const sameRun = resolve(runA) === resolve(runB);
  const [a, b] = [A.summary, B.summary];
  const [configA, configB] = [A.config, B.config];
  const [recordsA, recordsB] = [A.records, B.records];
  const reducer = configB.scoring.reducer ?? configA.scoring.reducer ?? 'mean';
  if ((configA.scoring.reducer ?? 'mean') !== (configB.scoring.reducer ?? 'mean')) {
    throw new DataFileError(`hisrag compare: the runs reduce repeated samples differently (A: ${configA.scoring.reducer ?? 'mean'}, B: ${configB.scoring.reducer ?? 'mean'}; scoring.reducer); rescore one of them with the other's reducer`);
  }
  // Differences of scores on different metrics (RS against accuracy) mean nothing.
  const [metricA, metricB] = [summaryMetric(a), summaryMetric(b)];
  if (metricA.id && metricB.id && metricA.id !== metricB.id) {
    throw new DataFileError(`hisrag compare: the runs are scored by different metrics (A: ${metricLabel(metricA.id)}, B: ${metricLabel(metricB.id)}); compare runs of the same benchmark`);
  }
  const metric = metricB.id || metricA.id;
  // One run's settings for both sides: B's seed and resamples, the cluster field either sets (B's first).
  const stats = runStatistics([...recordsA, ...recordsB], { cluster: configB.scoring.cluster ?? configA.scoring.cluster, reducer, resamples: configB.scoring.bootstrapResamples, seed: configB.seed });
  const clusterField = stats.settings.cluster;
  const byCell = (records: typeof recordsA) =>
    new Map([...groupBy(records.filter(isScored), (r) => `${r.model}\u0000${r.condition}`)].map(([key, list]) => [key, list.map(stats.observe)]));
  const questionsA = byCell(recordsA);
  const questionsB = byCell(recordsB);

  // Every model × condition of the compared summaries, once, in order of first appearance.
  const cells = (against ? [b] : [a, b]).flatMap((s) => s.cells).filter((c) => c.condition !== against);
  const keys = [...new Map(cells.map((c) => [`${c.model}\u0000${c.condition}`, [c.model, c.condition] as [string, string]])).values()];
  const pick = (s: RunSummary, model: string, condition: string) => {
    const cell = s.cells.find((c) => c.model === model && c.condition === condition);
    return cell ? { mean: cell.score.mean, ciLow: cell.score.ciLow, ciHigh: cell.score.ciHigh, n: cell.score.n } : null;
  };
  type Paired = Omit<NonNullable<ComparisonRow['paired']>, 'pHolm' | 'pBH' | 'family'>;
  const conditionA = (condition: string) => against ?? condition;
  const saltOf = (model: string, condition: string) =>
    !against ? salts.acrossRuns(model, condition) : sameRun ? salts.paired(model, condition, against, b.baseline) : `${salts.acrossRuns(model, condition)}|${against}`;
  const pairedOf = (model: string, condition: string): Paired | null => {
    const inA = questionsA.get(`${model}\u0000${conditionA(condition)}`);
    const inB = questionsB.get(`${model}\u0000${condition}`);
    if (!inA || !inB) return null;
    const d = pairedDifference(inB, inA, stats.settings, saltOf(model, condition));
    if (d.n === 0) return null;
    return { n: d.n, meanDiff: d.meanDiff!, ciLow: d.ciLow!, ciHigh: d.ciHigh!, clusters: clusterField ? d.clusters! : null, designEffect: d.designEffect ?? null, p: d.p! };
  };
  const paired = keys.map(([model, condition]) => pairedOf(model, condition));
  const members = paired.filter((p): p is Paired => p !== null);
  const family = against
    ? `${members.length} differences B − A vs ${against} (${basename(runB)} − ${basename(runA)}, every model × condition of B)`
    : `${members.length} differences B − A (${basename(runB)} − ${basename(runA)}, every model × condition both runs scored)`;
  const { holm, bh } = adjustFamily(members.map((p) => p.p));
  // One run twice: its corrected figures once, on B's side.
  const [checkA, checkB] = [sameRun ? undefined : runCheck(A), runCheck(B)];
  let next = 0;
  const rows: ComparisonRow[] = keys.map(([model, condition], i) => {
    const ra = pick(a, model, conditionA(condition));
    const rb = pick(b, model, condition);
    const diff = ra?.mean != null && rb?.mean != null ? rb.mean - ra.mean : null;
    const p = paired[i]!;
    const adjusted = p ? { ...p, pHolm: holm[next]!, pBH: bh[next]!, family } : null;
    if (p) next++;
    const corrected = checkA || checkB ? { corrected: { a: correctedCell(checkA, model, conditionA(condition)), b: correctedCell(checkB, model, condition) } } : {};
    return { model, condition, a: ra, b: rb, diff, paired: adjusted, ...corrected };
  });
  // Per row: its paired interval and p disagree about "no difference" (the text marks it †).
  const disagrees = rows.map((r) => r.paired !== null && intervalDisagreesWithTest(r.paired.ciLow, r.paired.ciHigh, r.paired.p, stats.settings.confidence));
  return { rows, disagrees, family, cluster: clusterField, metric, reducer, repeatedSamples: stats.settings.repeatedSamples, names: [basename(runA), basename(runB)] as [string, string], checks: [checkA, checkB] as const };
}

/** Two runs compared: the rows, the family their p are adjusted over, and what the text says of how. */
export type RunComparison = ReturnType<typeof compareRunData>;
