import type { RunSummary } from '../runFiles/summary.js';
import { scaleText, summaryMetric } from '../scoring/metrics.js';
import { pText } from './table.js';

/** The few non-ASCII signs hisrag's own texts use, as LaTeX that every engine sets. */
const TEX_SIGNS: Record<string, string> = { '–': '--', '—': '---', '−': '$-$', '×': '$\\times$', 'Δ': '$\\Delta$', 'δ': '$\\delta$', '·': '$\\cdot$', '≤': '$\\le$', '≥': '$\\ge$', '…': '\\ldots{}' };

/** Text set in LaTeX: its special characters escaped. */
export function texEscape(text: string): string {
  return text.replace(/[\\{}$&#%_^~–—−×Δδ·≤≥…]/g, (c) => TEX_SIGNS[c] ?? (c === '\\' ? '\\textbackslash{}' : c === '^' ? '\\^{}' : c === '~' ? '\\~{}' : `\\${c}`));
}

/** A number as the tables print it; a value that rounds to zero prints without a sign (`-0.00` would read as a finding). */
const num = (x: number | null | undefined, d = 2) => (x === null || x === undefined ? '--' : x.toFixed(d).replace(/^-(0\.?0*)$/, '$1'));
const ci = (lo: number | null | undefined, hi: number | null | undefined) => (lo == null || hi == null ? '' : ` [${num(lo)}, ${num(hi)}]`);

/** A p-value as the terminal prints it, in LaTeX (`<` in text mode would print `¡`). */
export const texP = (p: number | null | undefined) => texEscape(pText(p ?? null)).replace('<', '$<$');

/** What every caption names: the metric, the interval method and where the intervals were resampled. */
function intervalNote(summary: RunSummary): string {
  const metric = summaryMetric(summary);
  const level = Math.round(summary.bootstrap.confidence * 100);
  return `Metric: ${texEscape(`${metric.name} (${metric.description}, ${scaleText(metric.id)})`)}. ${level}\\% intervals: percentile bootstrap, ${summary.bootstrap.resamples} resamples, seed ${summary.bootstrap.seed}${summary.cluster ? `, over clusters (${texEscape(summary.cluster)})` : ''}.`;
}

/** The family, or families, whose p-values were adjusted together (Holm, Benjamini--Hochberg), as a caption's sentence. */
function familyNote(summary: RunSummary): string {
  const names = [...new Set((summary.families ?? []).map((f) => f.name))];
  if (!names.length) return '';
  return ` Famil${names.length > 1 ? 'ies' : 'y'} of comparisons adjusted together (Holm / Benjamini--Hochberg): ${names.map(texEscape).join('; ')}.`;
}

/** A booktabs table: caption, column spec, header line and rows. */
const texTable = (caption: string, columns: string, head: string, rows: string[]) =>
  ['\\begin{table}[t]\\centering', `\\caption{${caption}}`, `\\begin{tabular}{${columns}}`, '\\toprule', head, '\\midrule', ...rows, '\\bottomrule', '\\end{tabular}', '\\end{table}'].join('\n');

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
        const p = d?.p == null ? '--' : `${texP(d.pHolm)} / ${texP(d.pBH)}`;
        return `${texEscape(c.condition)} & ${num(c.score.mean)}${ci(c.score.ciLow, c.score.ciHigh)} & ${delta} & ${p} & ${c.scored} \\\\`;
      });
    const caption = `${texEscape(model)}: mean and paired difference $\\Delta$ against ${texEscape(summary.baseline)}. ${intervalNote(summary)} $p$: paired sign-flip permutation test, adjusted by Holm / Benjamini--Hochberg${family ? ` over the family ${texEscape(family)}` : ''}.`;
    out.push({ name: `conditions${tag}`, tex: texTable(caption, 'lllll', `condition & mean [95\\% CI] & $\\Delta$ [95\\% CI] & $p$ (Holm / BH) & $n$ \\\\`, rows) });
    const curves = (summary.depthCurves ?? []).filter((c) => c.model === model);
    if (curves.length) {
      const rows = curves.map(
        (c) =>
          `${texEscape(c.conditions[0]!.replace(/@\d+(tok)?$/, ''))}${c.unit === 'contextTokens' ? ' (budgets)' : ''} & ${num(c.slope.estimate)}${ci(c.slope.ciLow, c.slope.ciHigh)} & ${c.bestK}${c.unit === 'contextTokens' ? ' tok' : ''} & ${num(c.probabilityBest[c.depths.indexOf(c.bestK)])} & ${num(c.deepestMinusBest.estimate)}${ci(c.deepestMinusBest.ciLow, c.deepestMinusBest.ciHigh)} & ${c.n} \\\\`,
      );
      const caption = `${texEscape(model)}: depth curves, paired over the questions scored at every depth; $P(\\text{best})$: share of bootstrap resamples in which the best $k$ has the highest mean. ${intervalNote(summary)}${familyNote(summary)}`;
      out.push({ name: `depth-curves${tag}`, tex: texTable(caption, 'llllll', 'series & slope per $\\ln k$ [95\\% CI] & best $k$ & $P(\\text{best})$ & deepest $-$ best [95\\% CI] & $n$ \\\\', rows) });
    }
  }
  return out;
}

/** Chinese, Japanese or Korean characters: text pdflatex cannot set without CJK fonts (the export then asks for XeLaTeX and xeCJK). */
const CJK = /[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/u;

/** A figure of the export: its file name under `figures/` (no extension), whether its PDF was printed, its model and what it shows. */
export interface LatexFigure {
  name: string;
  pdf: boolean;
  model: string;
  subject: string;
}

/**
 * `main.tex`: a document that sets every table and every figure printed to PDF, each figure with a
 * caption naming the metric, the interval method and the family of adjusted comparisons; a figure
 * without a PDF is named in a comment. Latin text compiles with pdflatex (texlive-latex-base and
 * -recommended); when a name holds Chinese (a condition, a model) the document loads xeCJK with the
 * Noto CJK fonts and stops under any engine but XeLaTeX with a message saying so, since pdflatex
 * would need CJK fonts of its own (texlive-lang-chinese) to set it.
 */
export function latexDocument(summary: RunSummary, tables: { name: string; tex: string }[], figures: LatexFigure[]): string {
  const figureBodies = figures.map((f) => {
    if (!f.pdf) return `% figures/${f.name}.svg: no PDF printed (rerun hisrag export with --pdf; needs Chromium)`;
    const model = summary.models.length > 1 ? `${texEscape(f.model)}: ` : '';
    return [
      '\\begin{figure}[t]\\centering',
      `\\includegraphics[width=\\linewidth]{figures/${f.name}.pdf}`,
      `\\caption{${model}${texEscape(f.subject)}. ${intervalNote(summary)}${familyNote(summary)}}`,
      `\\label{fig:${f.name}}`,
      '\\end{figure}',
    ].join('\n');
  });
  const body = [...tables.map((t) => `\\input{${t.name}}`), ...figureBodies];
  const cjk = CJK.test([...tables.map((t) => t.tex), ...figureBodies].join('\n'));
  const engine = cjk
    ? [
        '% Chinese in the names: compile with xelatex (Debian: texlive-xetex texlive-lang-chinese fonts-noto-cjk).',
        '\\usepackage{iftex}',
        '\\ifXeTeX\\else\\errmessage{This export contains Chinese: compile it with xelatex}\\fi',
        '\\usepackage{xeCJK}',
        '\\setCJKmainfont{Noto Serif CJK SC}',
        '\\setCJKsansfont{Noto Sans CJK SC}',
      ]
    : ['% Compile with pdflatex (Debian: texlive-latex-base texlive-latex-recommended).'];
  return [
    `% ${summary.experiment}: tables and figures exported by hisrag from summary.json and figures/*.vl.json.`,
    '\\documentclass{article}',
    ...engine,
    '\\usepackage[margin=2cm]{geometry}',
    '\\usepackage{booktabs}',
    '\\usepackage{amsmath}',
    '\\usepackage{graphicx}',
    '\\begin{document}',
    ...body,
    '\\end{document}',
    '',
  ].join('\n');
}
