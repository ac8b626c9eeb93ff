import type { RunSummary } from '../runFiles/summary.js';
import { scaleText, summaryMetric } from '../scoring/metrics.js';
import { cellText, pText, reportSections, type SectionCell, type SectionColumn, type SectionTable } from './sections.js';

/** The few non-ASCII signs hisrag's own texts use, as LaTeX that every engine sets. */
const TEX_SIGNS: Record<string, string> = {
  '–': '--', '—': '---', '−': '$-$', '×': '$\\times$', 'Δ': '$\\Delta$', 'δ': '$\\delta$', '·': '$\\cdot$', '≤': '$\\le$', '≥': '$\\ge$', '≈': '$\\approx$', '…': '\\ldots{}',
  'κ': '$\\kappa$', 'α': '$\\alpha$', 'λ': '$\\lambda$', '’': "'",
};
const TEX_SPECIAL = new RegExp(`[\\\\{}$&#%_^~${Object.keys(TEX_SIGNS).join('')}]`, 'g');

/** Text set in LaTeX: its special characters escaped. */
export function texEscape(text: string): string {
  return text.replace(TEX_SPECIAL, (c) => TEX_SIGNS[c] ?? (c === '\\' ? '\\textbackslash{}' : c === '^' ? '\\^{}' : c === '~' ? '\\~{}' : `\\${c}`));
}

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

/** A cell in LaTeX: escaped, `<` of a p-value in math mode. */
const texCell = (column: SectionColumn, value: SectionCell) => texEscape(cellText(column, value)).replace(/</g, '$<$');

/**
 * A booktabs table: names left-aligned, numbers right-aligned (`r`), shrunk to the text width only
 * when it is wider (a table of many metrics), never enlarged.
 */
function texTable(table: SectionTable, caption: string): string {
  const spec = table.columns.map((c) => (c.kind === 'text' && !c.right ? 'l' : 'r')).join('');
  const head = table.columns.map((c) => texEscape(c.head)).join(' & ') + ' \\\\';
  const rows = table.rows.map((row) => table.columns.map((c, i) => texCell(c, row[i] ?? null)).join(' & ') + ' \\\\');
  return [
    '\\begin{table}[t]\\centering',
    `\\caption{${caption}}`,
    `\\label{tab:${table.name}}`,
    '\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%',
    `\\begin{tabular}{${spec}}`,
    '\\toprule',
    head,
    '\\midrule',
    ...rows,
    '\\bottomrule',
    '\\end{tabular}}',
    '\\end{table}',
  ].join('\n');
}

/**
 * A run's tables for a paper (booktabs), formatted from summary.json and never re-estimated: every
 * section of `reportSections` — conditions with Δ (and, with labels, the corrected Δ beside it),
 * depth curves and families, chunking × depth, span retrieval, modality, the judge check — each with
 * a caption naming the metric, the interval method and the family. One `.tex` body per table, by file name.
 */
export function latexTables(summary: RunSummary): { name: string; tex: string }[] {
  return reportSections(summary).map((table) => {
    const family = table.section === 'conditions' ? '' : familyNote(summary);
    const caption = `${texEscape(table.title)}. ${texEscape(table.note)} ${intervalNote(summary)}${family}`;
    return { name: table.name, tex: texTable(table, caption) };
  });
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
        '% Chinese in the names: compile with xelatex (Debian: texlive-xetex texlive-lang-chinese, and fonts-noto-cjk or fonts-wqy-microhei).',
        '\\usepackage{iftex}',
        '\\ifXeTeX\\else\\errmessage{This export contains Chinese: compile it with xelatex}\\fi',
        '\\usepackage{xeCJK}',
        // Debian's fonts-noto-cjk, else fonts-wqy-microhei: whichever the machine has.
        '\\IfFontExistsTF{Noto Serif CJK SC}{\\setCJKmainfont{Noto Serif CJK SC}\\setCJKsansfont{Noto Sans CJK SC}}{\\setCJKmainfont{WenQuanYi Micro Hei}\\setCJKsansfont{WenQuanYi Micro Hei}}',
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
