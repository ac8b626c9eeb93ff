import type { RunSummary } from '../runFiles/summary.js';
import { pText } from './table.js';

/** Text set in LaTeX: its special characters escaped. */
export function texEscape(text: string): string {
  return text.replace(/[\\{}$&#%_^~]/g, (c) => (c === '\\' ? '\\textbackslash{}' : c === '^' ? '\\^{}' : c === '~' ? '\\~{}' : `\\${c}`));
}

const num = (x: number | null | undefined, d = 2) => (x === null || x === undefined ? '--' : x.toFixed(d));
const ci = (lo: number | null | undefined, hi: number | null | undefined) => (lo == null || hi == null ? '' : ` [${num(lo)}, ${num(hi)}]`);

/** What every caption names: the metric, the interval method and where the intervals were resampled. */
function intervalNote(summary: RunSummary): string {
  const metric = summary.cells.find((c) => typeof (c as { metric?: unknown }).metric === 'string') as { metric?: string } | undefined;
  return `Metric: ${texEscape(metric?.metric ?? 'mean score')}. 95\\% intervals: percentile bootstrap, ${summary.bootstrap.resamples} resamples, seed ${summary.bootstrap.seed}${summary.cluster ? `, over clusters (${texEscape(summary.cluster)})` : ''}.`;
}

/**
 * A run's tables for a paper (booktabs), formatted from summary.json and never re-estimated: per
 * model the conditions with mean [interval] and Δ against the baseline [interval] with p adjusted
 * over its family (Holm, BH), and the depth-curve table. One `.tex` body per table, by file name.
 */
export function latexTables(summary: RunSummary): { name: string; tex: string }[] {
  const out: { name: string; tex: string }[] = [];
  for (const [i, model] of summary.models.entries()) {
    const tag = summary.models.length > 1 ? `-${i + 1}` : '';
    const paired = summary.paired.filter((p) => p.model === model);
    const family = paired.find((p) => p.family)?.family;
    const rows = summary.cells
      .filter((c) => c.model === model)
      .map((c) => {
        const d = paired.find((p) => p.condition === c.condition);
        const delta = d && d.meanDiff !== null ? `${d.meanDiff >= 0 ? '+' : ''}${num(d.meanDiff)}${ci(d.ciLow, d.ciHigh)}` : '--';
        const p = d?.p == null ? '--' : `${pText(d.pHolm ?? null)} / ${pText(d.pBH ?? null)}`;
        return `${texEscape(c.condition)} & ${num(c.score.mean)}${ci(c.score.ciLow, c.score.ciHigh)} & ${delta} & ${p} & ${c.scored} \\\\`;
      });
    out.push({
      name: `conditions${tag}`,
      tex: [
        '\\begin{table}[t]\\centering',
        `\\caption{${texEscape(model)}: mean and paired difference $\\Delta$ against ${texEscape(summary.baseline)}. ${intervalNote(summary)} $p$: paired sign-flip permutation test, adjusted by Holm / Benjamini--Hochberg${family ? ` over the family ${texEscape(family)}` : ''}.}`,
        '\\begin{tabular}{lllll}',
        '\\toprule',
        `condition & mean [95\\% CI] & $\\Delta$ [95\\% CI] & $p$ (Holm / BH) & $n$ \\\\`,
        '\\midrule',
        ...rows,
        '\\bottomrule',
        '\\end{tabular}',
        '\\end{table}',
      ].join('\n'),
    });
    const curves = (summary.depthCurves ?? []).filter((c) => c.model === model);
    if (curves.length) {
      out.push({
        name: `depth-curves${tag}`,
        tex: [
          '\\begin{table}[t]\\centering',
          `\\caption{${texEscape(model)}: depth curves, paired over the questions scored at every depth. ${intervalNote(summary)}}`,
          '\\begin{tabular}{llllll}',
          '\\toprule',
          'series & slope per $\\ln k$ [95\\% CI] & best $k$ & $P(\\text{best})$ & deepest $-$ best [95\\% CI] & $n$ \\\\',
          '\\midrule',
          ...curves.map(
            (c) =>
              `${texEscape(c.conditions[0]!.replace(/@\d+(tok)?$/, ''))}${c.unit === 'contextTokens' ? ' (budgets)' : ''} & ${num(c.slope.estimate)}${ci(c.slope.ciLow, c.slope.ciHigh)} & ${c.bestK}${c.unit === 'contextTokens' ? ' tok' : ''} & ${num(c.probabilityBest[c.depths.indexOf(c.bestK)])} & ${num(c.deepestMinusBest.estimate)}${ci(c.deepestMinusBest.ciLow, c.deepestMinusBest.ciHigh)} & ${c.n} \\\\`,
          ),
          '\\bottomrule',
          '\\end{tabular}',
          '\\end{table}',
        ].join('\n'),
      });
    }
  }
  return out;
}
