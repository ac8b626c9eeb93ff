import type { JudgeCheckSummary } from '../runFiles/summary.js';
import { escapeHtml } from './escape.js';
import { labelBasisLines } from './labelBasis.js';
import { sectionTableHtml } from './sectionHtml.js';
import { judgeCheckSections } from './sections.js';

/** The report's section: the judge check's tables, the same as the terminal's and the LaTeX export's (absent without labels). */
export function judgeCheckSectionHtml(check: JudgeCheckSummary | undefined): string {
  if (!check) return '';
  const basis = labelBasisLines(check).map((line) => `<p class="meta${check.synthetic ? ' synthetic' : ''}"><b>${escapeHtml(line)}</b></p>`).join('');
  return `<h2 id="judge-check">Judge checked against people</h2><p class="meta">Human labels beside the answers (labels/): agreement, the judge's bias per condition, and every mean and Δ corrected with the labels (PPI++) beside the judge-only figures. <code>hisrag judges &lt;run-dir&gt;</code> prints the same.</p>${basis}${judgeCheckSections(check).map((t) => sectionTableHtml(t)).join('')}`;
}
