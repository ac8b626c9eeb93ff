import type { AgreementRow, JudgeCheck } from '../analysis/judgeCheck.js';
import { renderTextTable } from './table.js';

const fixed = (v: number, digits: number) => (Number.isFinite(v) ? v.toFixed(digits) : '—');
const signed = (v: number, digits: number) => (Number.isFinite(v) ? `${v > 0 ? '+' : ''}${v.toFixed(digits)}` : '—');
const withInterval = (e: { estimate?: number; value?: number; ciLow: number; ciHigh: number } | null, digits: number, sign = false) => {
  if (!e) return '—';
  const v = e.estimate ?? e.value!;
  const f = sign ? signed : fixed;
  return `${f(v, digits)} [${f(e.ciLow, digits)}, ${f(e.ciHigh, digits)}]`;
};

function agreementTable(rows: AgreementRow[], raterHeader: string): string {
  return renderTextTable(
    [raterHeader, 'annotator', 'answers', 'units', 'r rubric', 'r answer (RS)', 'κ', 'α'],
    rows.map((r) => [r.judge, r.annotator, String(r.answers), String(r.units), withInterval(r.rubricPearson, 2), withInterval(r.answerPearson, 2), withInterval(r.kappa, 2), withInterval(r.alpha, 2)]),
  );
}

/** `hisrag judges`: the judge checked against people, as text tables (figures from analysis/judgeCheck.ts). */
export function judgeCheckTables(check: JudgeCheck): string {
  if (check.labelledAnswers === 0) return 'No human labels in this run (labels/<annotator>.jsonl): nothing to check the judge against.';
  const parts: string[] = [];
  if (check.synthetic) parts.push('SYNTHETIC LABELS: some labels in this run are declared synthetic (a demo), not a person\'s reading.');
  parts.push(`Judge against people: ${check.labelledAnswers} labelled answers, annotators ${check.annotators.join(', ')}; 95% intervals (r at rubric level, κ and α resample whole answers).`);
  parts.push(agreementTable(check.agreement, 'judge'));
  if (check.annotatorAgreement.length) parts.push('Between annotators:\n' + agreementTable(check.annotatorAgreement, 'annotator'));
  parts.push(
    'Means, judge-only beside corrected with the labels (PPI++), and the judge\'s bias (judge − human) on the labelled answers:\n' +
      renderTextTable(
        ['model', 'condition', 'judged', 'labelled', 'judge-only', 'labels only', 'PPI++', 'λ', 'bias'],
        check.conditions.map((c) => [
          c.model,
          c.condition,
          String(c.mean.n),
          String(c.mean.labelled),
          withInterval(c.mean.judgeOnly, 1),
          withInterval(c.mean.labelsOnly, 1),
          withInterval(c.mean.ppiPlusPlus, 1),
          fixed(c.mean.ppiPlusPlus.lambda, 2),
          withInterval(c.bias, 1, true),
        ]),
      ),
  );
  if (check.deltas.length) {
    parts.push(
      'Paired Δ against the baseline, judge-only beside corrected, and the bias difference (the judge\'s part of Δ):\n' +
        renderTextTable(
          ['model', 'condition', 'vs', 'pairs', 'labelled', 'Δ judge-only', 'Δ PPI++', 'bias Δ', 'judge share'],
          check.deltas.map((d) => [
            d.model,
            d.condition,
            d.baseline,
            String(d.delta.n),
            String(d.delta.labelled),
            withInterval(d.delta.judgeOnly, 1, true),
            withInterval(d.delta.ppiPlusPlus, 1, true),
            withInterval(d.biasDifference, 1, true),
            d.biasDifference?.shareOfJudgeDelta === null || d.biasDifference === null ? '—' : `${Math.round(d.biasDifference.shareOfJudgeDelta * 100)}%`,
          ]),
        ),
    );
  }
  return parts.join('\n\n');
}
