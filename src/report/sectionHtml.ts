import { escapeHtml as esc } from './escape.js';
import { cellText, type SectionTable } from './sections.js';

/** A section table (`reportSections`) in the report: a heading, the table (numbers right-aligned by the report's style), its note. */
export function sectionTableHtml(table: SectionTable, heading = 'h3'): string {
  const head = table.columns.map((c) => `<th>${esc(c.head)}</th>`).join('');
  const rows = table.rows.map((row) => `<tr>${table.columns.map((c, i) => `<td>${esc(cellText(c, row[i] ?? null))}</td>`).join('')}</tr>`);
  return `<${heading}>${esc(table.title)}</${heading}><div class="scroll"><table class="${table.name}"><tr>${head}</tr>${rows.join('')}</table></div><p class="meta">${esc(table.note)}</p>`;
}
