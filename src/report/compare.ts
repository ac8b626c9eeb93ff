import { metricInfo, metricLabel } from '../scoring/metrics.js';
import type { ComparisonRow, RunComparison } from '../analysis/compare.js';
import type { JudgeCheckSummary } from '../runFiles/summary.js';
import { num, signed } from './htmlCells.js';
import { labelBasisLines } from './labelBasis.js';
import { pText } from './sections.js';
import { DISAGREEMENT_NOTE, renderTextTable, withInterval } from './table.js';

type Open = JudgeCheckSummary['means'][number]['judgeOnly'];

/** `hisrag compare`'s text: the rows side by side, how B − A was tested, and each run's corrected figures. */
export function comparisonText({ rows, disagrees, family, cluster: clusterField, metric, reducer, repeatedSamples, names, checks }: RunComparison): string {
  const cell = (r: ComparisonRow['a']) => (r ? `${num(r.mean)} [${num(r.ciLow)}, ${num(r.ciHigh)}] n=${r.n}` : '–');
  const table = renderTextTable(
    ['model', 'condition', `A: ${names[0]}`, `B: ${names[1]}`, 'B − A', 'paired B − A [95% CI]', 'p (Holm, BH)'],
    rows.map((r, i) => [
      r.model,
      r.condition,
      cell(r.a),
      cell(r.b),
      signed(r.diff),
      r.paired ? `${signed(r.paired.meanDiff)} [${num(r.paired.ciLow)}, ${num(r.paired.ciHigh)}] n=${r.paired.n}` : '–',
      r.paired ? `${pText(r.paired.p)} (${pText(r.paired.pHolm)}, ${pText(r.paired.pBH)})${disagrees[i] ? ' †' : ''}` : '–',
    ]),
  );
  const note =
    `scores: ${metricLabel(metric)}, ${metricInfo(metric).description}; mean [95% CI] n=questions; ` +
    `paired B − A: the questions both runs scored${repeatedSamples ? ` (repeated samples reduced by their ${reducer}; two-stage bootstrap)` : ''}` +
    `${clusterField ? `, resampled and sign-flipped by cluster (${clusterField})` : ''}; p: paired sign-flip permutation test; Holm and BH adjusted over the family: ${family}` +
    `${disagrees.some(Boolean) ? `\n${DISAGREEMENT_NOTE}` : ''}`;
  const correctedText = checks.some(Boolean) ? `\n\n${correctedTable(rows, names, checks)}` : '';
  return `${table}\n\n${note}${correctedText}`;
}

/** The rows' corrected figures, one line per run and cell with labels: mean and Δ vs the run's baseline, judge-only beside PPI++. */
function correctedTable(rows: ComparisonRow[], names: [string, string], checks: RunComparison['checks']): string {
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
