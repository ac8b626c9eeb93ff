import type { JudgeCheckSummary } from '../runFiles/summary.js';
import { escapeHtml } from './escape.js';
import { renderTextTable } from './table.js';

type Open = { estimate: number | null; ciLow: number | null; ciHigh: number | null };
type AgreementRow = JudgeCheckSummary['agreement'][number];

const fixed = (v: number | null, digits: number) => (v === null ? '—' : v.toFixed(digits));
const signed = (v: number | null, digits: number) => (v === null ? '—' : `${v > 0 ? '+' : ''}${v.toFixed(digits)}`);
const withInterval = (e: Open | null, digits: number, sign = false) => {
  if (!e || e.estimate === null) return '—';
  const f = sign ? signed : fixed;
  return e.ciLow === null ? f(e.estimate, digits) : `${f(e.estimate, digits)} [${f(e.ciLow, digits)}, ${f(e.ciHigh, digits)}]`;
};

function agreementTable(rows: AgreementRow[], raterHeader: string): string {
  return renderTextTable(
    [raterHeader, 'annotator', 'answers', 'units', 'r rubric', 'r answer (RS)', 'κ', 'α'],
    rows.map((r) => [r.judge, r.annotator, String(r.answers), String(r.units), withInterval(r.rubricPearson, 2), withInterval(r.answerPearson, 2), withInterval(r.kappa, 2), withInterval(r.alpha, 2)]),
  );
}

/** `hisrag judges` and `hisrag report`: the judge checked against people, as text tables (summary.json's `judgeCheck`). */
export function judgeCheckTables(check: JudgeCheckSummary | undefined): string {
  if (!check) return 'No human labels in this run (labels/<annotator>.jsonl): nothing to check the judge against.';
  const parts: string[] = [];
  if (check.synthetic) parts.push('SYNTHETIC LABELS: some labels in this run are declared synthetic (a demo), not a person\'s reading.');
  parts.push(`Judge against people: ${check.labelledAnswers} labelled answers, annotators ${check.annotators.join(', ')}; 95% intervals (r at rubric level, κ and α resample whole answers).`);
  parts.push(agreementTable(check.agreement, 'judge'));
  if (check.annotatorAgreement.length) parts.push('Between annotators:\n' + agreementTable(check.annotatorAgreement, 'annotator'));
  parts.push(
    'Means, judge-only beside corrected with the labels (PPI++), and the judge\'s bias (judge − human) on the labelled answers:\n' +
      renderTextTable(
        ['model', 'condition', 'judged', 'labelled', 'judge-only', 'labels only', 'PPI++', 'λ', 'bias'],
        check.means.map((c) => [
          c.model,
          c.condition,
          String(c.n),
          String(c.labelled),
          withInterval(c.judgeOnly, 1),
          withInterval(c.labelsOnly, 1),
          withInterval(c.ppiPlusPlus, 1),
          fixed(c.lambda, 2),
          withInterval(c.bias, 1, true),
        ]),
      ),
  );
  if (check.differences.length) {
    parts.push(
      'Paired Δ against the baseline, judge-only beside corrected, and the bias difference (the judge\'s part of Δ):\n' +
        renderTextTable(
          ['model', 'condition', 'vs', 'pairs', 'labelled', 'Δ judge-only', 'Δ PPI++', 'bias Δ', 'judge share'],
          check.differences.map((d) => [
            d.model,
            d.condition,
            d.baseline,
            String(d.n),
            String(d.labelled),
            withInterval(d.judgeOnly, 1, true),
            withInterval(d.ppiPlusPlus, 1, true),
            withInterval(d.biasDifference, 1, true),
            d.judgeShare === null ? '—' : `${Math.round(d.judgeShare * 100)}%`,
          ]),
        ),
    );
  }
  return parts.join('\n\n');
}

/** The report's section: the same tables, preformatted (absent without labels). */
export function judgeCheckSectionHtml(check: JudgeCheckSummary | undefined): string {
  if (!check) return '';
  const text = escapeHtml(judgeCheckTables(check));
  return `<h2 id="judge-check">Judge checked against people</h2><p class="meta">Human labels beside the answers (labels/): agreement, the judge's bias per condition, and every mean and Δ corrected with the labels (PPI++) beside the judge-only figures. <code>hisrag judges &lt;run-dir&gt;</code> prints the same.</p><pre class="judge-check">${text}</pre>`;
}
