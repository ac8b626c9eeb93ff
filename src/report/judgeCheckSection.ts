import type { JudgeCheckSummary } from '../runFiles/summary.js';
import { escapeHtml } from './escape.js';
import { judgeCheckTables } from './table.js';

/** The report's section: the same tables, preformatted (absent without labels). */
export function judgeCheckSectionHtml(check: JudgeCheckSummary | undefined): string {
  if (!check) return '';
  const text = escapeHtml(judgeCheckTables(check));
  return `<h2 id="judge-check">Judge checked against people</h2><p class="meta">Human labels beside the answers (labels/): agreement, the judge's bias per condition, and every mean and Δ corrected with the labels (PPI++) beside the judge-only figures. <code>hisrag judges &lt;run-dir&gt;</code> prints the same.</p><pre class="judge-check">${text}</pre>`;
}
