import { deltaText, summaryMetric } from '../scoring/metrics.js';
import type { MeanWithCi, RunSummary } from '../runFiles/summary.js';
import { MODALITY_BREAKDOWN_KEYS } from '../analysis/modalityComparison.js';
import type { ModalityComparison, PairedCell } from '../runFiles/summary.js';
import { escapeHtml as esc } from './escape.js';
import { diffHtml, meanCiHtml, num, shareHtml, signed } from './htmlCells.js';

/** How the Table 3 breakdowns are headed. */
export const BREAKDOWN_LABELS: Record<string, string> = { evidence_modal: 'evidence modality', category: 'type', answer_type: 'answer type' };

const meanCi = (m: MeanWithCi | undefined) => meanCiHtml(m, 2, ` n=${m?.n}`);
const diffCi = (c: PairedCell | undefined) => diffHtml(c, ` n=${c?.n}`);

/** The breakdown columns of one model: each Table 3 key with the values any of its comparisons or cells has. */
function breakdownColumns(summary: RunSummary, model: string, comparisons: ModalityComparison[]): { key: string; values: string[] }[] {
  return MODALITY_BREAKDOWN_KEYS.map((key) => {
    const values = new Set<string>();
    for (const c of comparisons) for (const v of Object.keys(c.byGroup[key] ?? {})) values.add(v);
    for (const cell of summary.cells.filter((c) => c.model === model)) for (const v of Object.keys(cell.byGroup[key] ?? {})) values.add(v);
    return { key, values: [...values].sort() };
  }).filter((column) => column.values.length > 0);
}

function headRows(columns: { key: string; values: string[] }[], first: string): string {
  return (
    `<tr><th rowspan="2">${first}</th><th rowspan="2">all</th>${columns.map((c) => `<th colspan="${c.values.length}">${esc(BREAKDOWN_LABELS[c.key] ?? c.key)}</th>`).join('')}</tr>` +
    `<tr>${columns.flatMap((c) => c.values.map((v) => `<th>${esc(v)}</th>`)).join('')}</tr>`
  );
}

/**
 * "Image input against OCR input": per model, each condition's mean by the Table 3 breakdowns, then
 * each image condition against each text-only `scoring.versus` condition: paired Δ and help/hurt.
 */
export function modalitySectionHtml(summary: RunSummary): string {
  const all = summary.byModality ?? [];
  if (!all.length) return '';
  const out: string[] = ['<h2 id="image-vs-ocr">Image input against OCR input, by evidence modality</h2>'];
  out.push(
    `<p class="meta">Conditions whose prompts showed page images against the text-only conditions of <code>scoring.versus</code> (${all
      .map((c) => esc(c.against))
      .filter((v, i, a) => a.indexOf(v) === i)
      .join(', ')}). Means with 95% bootstrap CIs; differences are paired (condition − OCR input) on the questions both scored; helped / hurt use ${esc(deltaText(all[0]!.decomposition.delta, summaryMetric(summary).id))}.</p>`,
  );
  for (const model of summary.models) {
    const mine = all.filter((c) => c.model === model);
    if (!mine.length) continue;
    const columns = breakdownColumns(summary, model, mine);
    out.push(`<h3>${esc(model)}: accuracy by evidence modality, type and answer type</h3><div class="scroll"><table class="modality-means">${headRows(columns, 'condition')}`);
    for (const cell of summary.cells.filter((c) => c.model === model)) {
      out.push(`<tr><td>${esc(cell.condition)}</td><td>${meanCi(cell.score)}</td>${columns.flatMap((c) => c.values.map((v) => `<td>${meanCi(cell.byGroup[c.key]?.[v])}</td>`)).join('')}</tr>`);
    }
    out.push('</table></div>');
    out.push(`<h3>${esc(model)}: paired difference, image − OCR</h3><div class="scroll"><table class="modality-diff">${headRows(columns, 'condition − against')}`);
    for (const c of mine) {
      out.push(`<tr><td>${esc(c.condition)} − ${esc(c.against)}</td><td>${diffCi(c.overall)}</td>${columns.flatMap((col) => col.values.map((v) => `<td>${diffCi(c.byGroup[col.key]?.[v])}</td>`)).join('')}</tr>`);
    }
    out.push('</table></div>');
    out.push(`<h3>${esc(model)}: help / hurt of image input against OCR input</h3><table class="modality-decomposition"><tr><th>condition − against</th><th>helped (contribution)</th><th>hurt (contribution)</th><th>unchanged (contribution)</th><th>Δ</th><th>n</th></tr>`);
    for (const c of mine) {
      const d = c.decomposition;
      out.push(`<tr><td>${esc(c.condition)} − ${esc(c.against)}</td><td>${shareHtml(d.helped)}</td><td>${shareHtml(d.hurt)}</td><td>${shareHtml(d.unchanged)}</td><td>${signed(d.meanDiff)}</td><td>${d.n}</td></tr>`);
    }
    out.push('</table>');
  }
  return out.join('\n');
}

/** The same comparison for the terminal: one line per pair, Δ overall and per evidence modality. */
export function modalityLines(summary: RunSummary): string[] {
  return (summary.byModality ?? []).map((c) => {
    const byModal = Object.entries(c.byGroup.evidence_modal ?? {}).map(([v, cell]) => `${v} ${signed(cell.meanDiff)} [${num(cell.ciLow)}, ${num(cell.ciHigh)}] (n=${cell.n})`);
    const d = c.decomposition;
    return (
      `${summary.models.length > 1 ? `${c.model} ` : ''}${c.condition} − ${c.against}: ${signed(c.overall.meanDiff)} [${num(c.overall.ciLow)}, ${num(c.overall.ciHigh)}] (n=${c.overall.n})` +
      `${byModal.length ? `; by evidence modality: ${byModal.join(', ')}` : ''}; helped ${d.helped.n}, hurt ${d.hurt.n}, unchanged ${d.unchanged.n}`
    );
  });
}
