import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { DataFileError, formatZodIssues } from '../errors.js';
import { validateExperimentConfig } from '../config/load.js';
import type { ExperimentConfig } from '../config/experiment.js';
import { assertRunDirectory, readRunRecords, runFile } from '../runFiles/runDir.js';
import type { RunSummary } from '../runFiles/summary.js';
import { readRunSummaryFile } from '../runFiles/summaryFile.js';
import { scoredQuestions, seedFor } from '../experiment/summary.js';
import { clusterFieldOf, clusterKeyOf } from '../experiment/clusterKey.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { reduceSamples, twoStageBootstrap } from '../scoring/estimators/samples.js';
import { signFlipTest } from '../scoring/estimators/pairedTest.js';
import { benjaminiHochbergAdjust, holmAdjust } from '../scoring/estimators/multipleComparisons.js';
import { pText, renderTextTable } from './table.js';

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
}

export async function readRunSummary(runDir: string): Promise<RunSummary> {
  assertRunDirectory(runDir);
  const summary = await readRunSummaryFile(runDir);
  if (!summary) throw new DataFileError(`${runFile(runDir, 'summary')}: no such file; run \`hisrag report ${runDir}\` first`);
  return summary;
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

/**
 * Two runs side by side, matched by model label and condition name, with the paired difference
 * B − A on the questions both scored: interval, paired sign-flip test (whole clusters flipped, a
 * question's samples reduced first so they move together) and Holm / BH adjustment over every row
 * compared — the family is named in the text and in each row.
 */
export async function compareRuns(runA: string, runB: string): Promise<{ rows: ComparisonRow[]; text: string; family: string; cluster: string | null }> {
  const [a, b] = await Promise.all([readRunSummary(runA), readRunSummary(runB)]);
  const [configA, configB] = await Promise.all([readRunConfig(runA), readRunConfig(runB)]);
  const [recordsA, recordsB] = await Promise.all([readRunRecords(runA), readRunRecords(runB)]);
  const reducer = configB.scoring.reducer ?? configA.scoring.reducer ?? 'mean';
  if ((configA.scoring.reducer ?? 'mean') !== (configB.scoring.reducer ?? 'mean')) {
    throw new DataFileError(`hisrag compare: the runs reduce repeated samples differently (A: ${configA.scoring.reducer ?? 'mean'}, B: ${configB.scoring.reducer ?? 'mean'}; scoring.reducer); rescore one of them with the other's reducer`);
  }
  const clusterField = clusterFieldOf([...recordsA, ...recordsB], configB.scoring.cluster ?? configA.scoring.cluster);
  const cluster = clusterField ? clusterKeyOf(clusterField) : null;
  const questionsA = scoredQuestions(recordsA);
  const questionsB = scoredQuestions(recordsB);

  const keys: [string, string][] = [];
  const seen = new Set<string>();
  for (const s of [a, b]) {
    for (const cell of s.cells) {
      const key = `${cell.model}\u0000${cell.condition}`;
      if (!seen.has(key)) {
        seen.add(key);
        keys.push([cell.model, cell.condition]);
      }
    }
  }
  const pick = (s: RunSummary, model: string, condition: string) => {
    const cell = s.cells.find((c) => c.model === model && c.condition === condition);
    return cell ? { mean: cell.score.mean, ciLow: cell.score.ciLow, ciHigh: cell.score.ciHigh, n: cell.score.n } : null;
  };
  type Paired = Omit<NonNullable<ComparisonRow['paired']>, 'pHolm' | 'pBH' | 'family'>;
  const pairedOf = (model: string, condition: string): Paired | null => {
    const inA = questionsA.get(`${model}\u0000${condition}`);
    const inB = questionsB.get(`${model}\u0000${condition}`);
    if (!inA || !inB) return null;
    const samplesB: number[][] = [];
    const samplesA: number[][] = [];
    const clusterKeys: string[] = [];
    for (const [key, qb] of inB) {
      const qa = inA.get(key);
      if (!qa) continue;
      samplesB.push(qb.scores);
      samplesA.push(qa.scores);
      if (cluster) clusterKeys.push(cluster(qb.record as RunItemRecord));
    }
    if (!samplesB.length) return null;
    const salt = `${model}|${condition}|compare`;
    const clusters = cluster ? clusterKeys : undefined;
    const d = twoStageBootstrap({ samples: samplesB, minus: samplesA, ...(clusters ? { clusters } : {}), reducer }, { resamples: configB.scoring.bootstrapResamples, seed: seedFor(configB.seed, salt) });
    const diffs = samplesB.map((s, i) => reduceSamples(s, reducer) - reduceSamples(samplesA[i]!, reducer));
    const test = signFlipTest(diffs, clusters, { seed: seedFor(configB.seed, `${salt}|test`) });
    return { n: d.n, meanDiff: d.mean, ciLow: d.ciLow, ciHigh: d.ciHigh, clusters: cluster ? d.clusters : null, designEffect: d.designEffect, p: test.p };
  };
  const paired = keys.map(([model, condition]) => pairedOf(model, condition));
  const members = paired.filter((p): p is Paired => p !== null);
  const family = `${members.length} differences B − A (${basename(runB)} − ${basename(runA)}, every model × condition both runs scored)`;
  const holm = holmAdjust(members.map((p) => p.p));
  const bh = benjaminiHochbergAdjust(members.map((p) => p.p));
  let next = 0;
  const rows: ComparisonRow[] = keys.map(([model, condition], i) => {
    const ra = pick(a, model, condition);
    const rb = pick(b, model, condition);
    const diff = ra?.mean != null && rb?.mean != null ? rb.mean - ra.mean : null;
    const p = paired[i]!;
    const adjusted = p ? { ...p, pHolm: holm[next]!, pBH: bh[next]!, family } : null;
    if (p) next++;
    return { model, condition, a: ra, b: rb, diff, paired: adjusted };
  });
  const f = (x: number | null | undefined) => (x === null || x === undefined ? '–' : x.toFixed(2));
  const signed = (x: number) => `${x >= 0 ? '+' : ''}${f(x)}`;
  const cell = (r: ComparisonRow['a']) => (r ? `${f(r.mean)} [${f(r.ciLow)}, ${f(r.ciHigh)}] n=${r.n}` : '–');
  const table = renderTextTable(
    ['model', 'condition', `A: ${basename(runA)}`, `B: ${basename(runB)}`, 'B − A', 'paired B − A [95% CI]', 'p (Holm, BH)'],
    rows.map((r) => [
      r.model,
      r.condition,
      cell(r.a),
      cell(r.b),
      r.diff === null ? '–' : signed(r.diff),
      r.paired ? `${signed(r.paired.meanDiff)} [${f(r.paired.ciLow)}, ${f(r.paired.ciHigh)}] n=${r.paired.n}` : '–',
      r.paired ? `${pText(r.paired.p)} (${pText(r.paired.pHolm)}, ${pText(r.paired.pBH)})` : '–',
    ]),
  );
  const note =
    `paired B − A: the questions both runs scored${reducer !== 'mean' || [...recordsA, ...recordsB].some((r) => (r.sample ?? 0) > 0) ? ` (repeated samples reduced by their ${reducer}; two-stage bootstrap)` : ''}` +
    `${clusterField ? `, resampled and sign-flipped by cluster (${clusterField})` : ''}; p: paired sign-flip permutation test; Holm and BH adjusted over the family: ${family}`;
  return { rows, text: `${table}\n\n${note}`, family, cluster: clusterField };
}
