import { deltaText } from '../../../scoring/metrics.js';
import type { RunDetail } from '../../api.js';
import { ci, fmt, signed } from '../util.js';

type Comparison = RunDetail['byModality'][number];
type Cell = Comparison['overall'];

const LABELS: Record<string, string> = { evidence_modal: 'evidence modality', category: 'type', answer_type: 'answer type' };

function DiffCell({ cell }: { cell: Cell | undefined }) {
  if (!cell || cell.meanDiff === null) return <td class="num">–</td>;
  return (
    <td class={`num ${cell.meanDiff > 0 ? 'better' : cell.meanDiff < 0 ? 'worse' : ''}`} title={`${fmt(cell.condition.mean)} vs ${fmt(cell.against.mean)} on ${cell.n} questions`}>
      {signed(cell.meanDiff)} <span class="meta">{ci(cell.ciLow, cell.ciHigh)} n={cell.n}</span>
    </td>
  );
}

/**
 * Image input against OCR input (summary's `byModality`): per pair, the paired difference overall and
 * per evidence modality, type and answer type, and the questions helped, hurt or left unchanged.
 */
export function ModalityTable({ detail }: { detail: RunDetail }) {
  const list = detail.byModality ?? [];
  if (!list.length) return null;
  const columns = Object.keys(LABELS)
    .map((key) => ({ key, values: [...new Set(list.flatMap((c) => Object.keys(c.byGroup[key] ?? {})))].sort() }))
    .filter((c) => c.values.length);
  const many = new Set(list.map((c) => c.model)).size > 1;
  return (
    <>
      <h2 id="image-vs-ocr">Image input against OCR input, by evidence modality</h2>
      <p class="meta">Paired difference (image condition − OCR condition) on the questions both scored, with 95% bootstrap CIs; helped / hurt at {deltaText(list[0]!.decomposition.delta, detail.metric ?? '')}.</p>
      <div class="scroll">
        <table class="modality">
          <thead>
            <tr>
              <th rowSpan={2}>condition − against</th>
              <th rowSpan={2}>all</th>
              {columns.map((c) => (
                <th colSpan={c.values.length}>{LABELS[c.key]}</th>
              ))}
              <th rowSpan={2}>helped / hurt / unchanged</th>
            </tr>
            <tr>
              {columns.flatMap((c) => c.values.map((v) => <th>{v}</th>))}
            </tr>
          </thead>
          <tbody>
            {list.map((c) => (
              <tr data-condition={c.condition} data-against={c.against}>
                <td>
                  {many ? `${c.model} · ` : ''}
                  {c.condition} − {c.against}
                </td>
                <DiffCell cell={c.overall} />
                {columns.flatMap((col) => col.values.map((v) => <DiffCell cell={c.byGroup[col.key]?.[v]} />))}
                <td class="num">
                  {c.decomposition.helped.n} / {c.decomposition.hurt.n} / {c.decomposition.unchanged.n}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
