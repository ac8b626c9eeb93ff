import type { RunDetail } from '../../api.js';
import { labelBasisLines } from '../../../report/labelBasis.js';
import { ci, fmt, signed, Table } from '../util.js';

type Open = { estimate: number | null; ciLow: number | null; ciHigh: number | null } | null;

const Figure = ({ value, sign, digits = 1 }: { value: Open; sign?: boolean; digits?: number }) => (
  <td class="num">
    {value ? (sign ? signed(value.estimate, digits) : fmt(value.estimate, digits)) : '–'} <span class="meta">{value ? ci(value.ciLow, value.ciHigh, digits) : ''}</span>
  </td>
);

/**
 * The judge checked against people (summary's `judgeCheck`): each Δ judge-only beside PPI++, the
 * judge's bias per condition, and its agreement with each annotator. Nothing for runs without labels.
 */
export function JudgeCheckTable({ detail }: { detail: RunDetail }) {
  const check = detail.judgeCheck;
  const stale = detail.labelsStale ? <p class={`labels-stale${detail.labelsStale.refreshing ? ' refreshing' : ''}`}>{detail.labelsStale.note}</p> : null;
  if (!check) return stale;
  return (
    <>
      <h2 id="judge-check">Judge checked against people</h2>
      {stale}
      {labelBasisLines(check).map((line) => (
        <p class={check.synthetic ? 'meta synthetic' : 'meta'}>
          <b>{line}</b>
        </p>
      ))}
      <p class="meta">
        95% clustered intervals. <code>hisrag judges &lt;run-dir&gt;</code> prints every figure.
      </p>
      <Table class="judge-check" scroll cols={['condition', 'labelled', 'judge-only', 'PPI++', 'bias (judge − human)', 'Δ judge-only', 'Δ PPI++', 'Δ labels only', 'judge’s part of Δ']}>
        {check.means.map((m) => {
          const d = check.differences.find((x) => x.model === m.model && x.condition === m.condition);
          return (
            <tr data-condition={m.condition}>
              <td>{m.condition}</td>
              <td class="num">{m.labelled} / {m.n}</td>
              <Figure value={m.judgeOnly} />
              <Figure value={m.ppiPlusPlus} />
              <Figure value={m.bias} sign />
              <Figure value={d?.judgeOnly ?? null} sign />
              <Figure value={d?.ppiPlusPlus ?? null} sign />
              <Figure value={d?.labelsOnly ?? null} sign />
              <Figure value={d?.biasDifference ?? null} sign />
            </tr>
          );
        })}
      </Table>
      <Table class="judge-agreement" cols={['judge', 'annotator', 'answers', 'r rubric', 'r answer', 'κ', 'α']}>
        {[...check.agreement, ...check.annotatorAgreement].map((a) => (
          <tr>
            <td>{a.judge}</td><td>{a.annotator}{a.synthetic ? ' (synthetic)' : ''}</td><td class="num">{a.answers}</td>
            <Figure value={a.rubricPearson} digits={2} /><Figure value={a.answerPearson} digits={2} /><Figure value={a.kappa} digits={2} /><Figure value={a.alpha} digits={2} />
          </tr>
        ))}
      </Table>
    </>
  );
}
