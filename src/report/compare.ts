import { metricInfo, metricLabel, summaryMetric } from '../scoring/metrics.js';
import { basename, resolve } from 'node:path';
import { DataFileError } from '../errors.js';
import type { ExperimentConfig } from '../config/experiment.js';
import type { RunSummary } from '../runFiles/summary.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { isScored, runStatistics } from '../analysis/observations.js';
import { groupBy } from '../diagnostics/groupBy.js';
import { adjustFamily, pairedDifference, salts } from '../statistics/run.js';
import { labelBasisLines } from './labelBasis.js';
import { DISAGREEMENT_NOTE, pText, renderTextTable, withInterval } from './table.js';
import { intervalDisagreesWithTest } from '../statistics/pairedTest.js';
import { checkJudge, judgeCheckSummary } from '../analysis/judgeCheck.js';
import type { AnswerLabel } from '../runFiles/labels.js';
import type { JudgeCheckSummary } from '../runFiles/summary.js';

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
  if (!run.labels?.length) return undefined;
  const scoring = run.config.scoring;
  return judgeCheckSummary(checkJudge(run.records, run.labels, { baseline: scoring.baseline, ...(scoring.cluster !== undefined ? { cluster: scoring.cluster } : {}), resamples: scoring.bootstrapResamples, seed: run.config.seed, inclusion: run.labelInclusion }));
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
export function compareRunData(A: ComparedRun, B: ComparedRun, options: { against?: string } = {}): { rows: ComparisonRow[]; text: string; family: string; cluster: string | null; metric: string } {
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
  const f = (x: number | null | undefined) => (x === null || x === undefined ? '–' : x.toFixed(2));
  const signed = (x: number) => `${x >= 0 ? '+' : ''}${f(x)}`;
  const cell = (r: ComparisonRow['a']) => (r ? `${f(r.mean)} [${f(r.ciLow)}, ${f(r.ciHigh)}] n=${r.n}` : '–');
  const disagrees = (d: NonNullable<ComparisonRow['paired']>) => intervalDisagreesWithTest(d.ciLow, d.ciHigh, d.p, stats.settings.confidence);
  const table = renderTextTable(
    ['model', 'condition', `A: ${basename(runA)}`, `B: ${basename(runB)}`, 'B − A', 'paired B − A [95% CI]', 'p (Holm, BH)'],
    rows.map((r) => [
      r.model,
      r.condition,
      cell(r.a),
      cell(r.b),
      r.diff === null ? '–' : signed(r.diff),
      r.paired ? `${signed(r.paired.meanDiff)} [${f(r.paired.ciLow)}, ${f(r.paired.ciHigh)}] n=${r.paired.n}` : '–',
      r.paired ? `${pText(r.paired.p)} (${pText(r.paired.pHolm)}, ${pText(r.paired.pBH)})${disagrees(r.paired) ? ' †' : ''}` : '–',
    ]),
  );
  const note =
    `scores: ${metricLabel(metric)}, ${metricInfo(metric).description}; mean [95% CI] n=questions; ` +
    `paired B − A: the questions both runs scored${stats.settings.repeatedSamples ? ` (repeated samples reduced by their ${reducer}; two-stage bootstrap)` : ''}` +
    `${clusterField ? `, resampled and sign-flipped by cluster (${clusterField})` : ''}; p: paired sign-flip permutation test; Holm and BH adjusted over the family: ${family}` +
    `${rows.some((r) => r.paired && disagrees(r.paired)) ? `\n${DISAGREEMENT_NOTE}` : ''}`;
  const correctedText = checkA || checkB ? `\n\n${correctedTable(rows, [basename(runA), basename(runB)], [checkA, checkB])}` : '';
  return { rows, text: `${table}\n\n${note}${correctedText}`, family, cluster: clusterField, metric };
}

/** The rows' corrected figures, one line per run and cell with labels: mean and Δ vs the run's baseline, judge-only beside PPI++. */
function correctedTable(rows: ComparisonRow[], names: [string, string], checks: [JudgeCheckSummary | undefined, JudgeCheckSummary | undefined]): string {
  const interval = (e: Open, sign = false) => withInterval(e, 1, sign);
  const lines: string[][] = [];
  for (const row of rows) {
    for (const [side, cell] of [['A', row.corrected?.a], ['B', row.corrected?.b]] as const) {
      if (!cell) continue;
      lines.push([
        row.model,
        row.condition,
        `${side}: ${names[side === 'A' ? 0 : 1]}`,
        `${cell.labelled}/${cell.n}`,
        interval(cell.mean.judgeOnly),
        interval(cell.mean.ppiPlusPlus),
        interval(cell.bias, true),
        cell.delta ? `${interval(cell.delta.judgeOnly, true)} vs ${cell.delta.baseline}` : '–',
        cell.delta ? interval(cell.delta.ppiPlusPlus, true) : '–',
      ]);
    }
  }
  const table = renderTextTable(['model', 'condition', 'run', 'labelled', 'mean judge-only', 'mean PPI++', 'bias (judge − human)', 'Δ judge-only', 'Δ PPI++'], lines);
  return [
    // Whose labels each run's corrected figures rest on: synthetic ones said so, a stand-in's left out beside a person's.
    ...checks.flatMap((check, i) => (check ? labelBasisLines(check).map((line) => `${names[i]}: ${line}`) : [])),
    'Corrected with each run\'s human labels (PPI++; labels/ beside its answers), judge-only beside corrected, 95% clustered intervals; Δ against the run\'s own baseline:',
    table,
  ].join('\n');
}
