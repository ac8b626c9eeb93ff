import { meanHeader, metricInfo } from '../../../scoring/metrics.js';
import { Link, useLocation } from '../router.js';
import type { CellView, RunDetail } from '../../api.js';
import { decompositionOf, depthText, FACTORS, factorValue, pivotCells, type Factor } from '../../queries.js';
import { Choice, ci, fmt, Indexing, Pending, pValue, runPath, signed, Status, Table, to, useApi, useLoad, useRunDetail, useViewParams, when } from '../util.js';
import { ModalityTable } from './modality.js';
import { JudgeCheckTable } from './judgeCheck.js';
import { Figure } from '../figure.js';

const tokensOf = (c: CellView) => (c.cost ? c.cost.promptTokens + c.cost.completionTokens : null);

export function compareLink(run: string, model: string, a: string, b: string): string {
  return to('/compare', { ar: run, am: model, ac: a, br: run, bm: model, bc: b });
}

/** One run: its conditions (flat or pivoted by two factors), score against k and cost, groups. */
export function RunView({ id }: { id: string }) {
  const api = useApi();
  const [params, set] = useViewParams();
  const detail = useRunDetail(id);
  if (!detail.data) return <Pending state={detail} what="Loading run…" />;
  const d = detail.data;
  const rows = (params.get('rows') ?? '') as Factor | '';
  const cols = (params.get('cols') ?? '') as Factor | '';
  const groupKey = params.get('groups') ?? d.groupKeys.find((k) => k === 'category') ?? d.groupKeys[0] ?? '';
  const report = api.reportUrl(id);
  return (
    <section>
      <h1>
        {d.run.experiment} <span class="meta">{d.run.id}</span>
      </h1>
      <p class="meta">
        <Status value={d.run.status} /> started {when(d.run.startedAt)}
        {d.run.finishedAt ? `, finished ${when(d.run.finishedAt)}` : ''} · <span class="answers-count">{d.run.answers}</span>
        {d.run.total !== null ? ` of ${d.run.total}` : ''} answers · {d.run.items} items · baseline <b>{d.baseline}</b> · {d.run.failures} failed · {d.run.empty} empty
        {api.live ? <> · <Link href={runPath(id, '/label')}>label answers</Link></> : null}
        {report && d.report ? <> · <a href={report}>report.html</a></> : null}
      </p>
      {d.run.stoppedBecause ? <p class="error">stopped because: {d.run.stoppedBecause}</p> : null}
      {d.run.problems.map((problem) => (
        <p class="error run-file-problem">{problem}</p>
      ))}
      <Indexing run={d.run} />
      <Previous detail={d} />
      <h2>Conditions</h2>
      <div class="filters">
        <Choice label="pivot rows" value={rows} options={[['', '(flat table)'], ...FACTORS]} onChange={(value) => set({ rows: value })} />
        <Choice label="columns" name="pivot columns" value={cols} options={[['', '–'], ...FACTORS]} onChange={(value) => set({ cols: value })} />
        <CompareForm detail={d} />
      </div>
      {rows && cols && rows !== cols ? <PivotTable detail={d} rows={rows} cols={cols} /> : <ConditionsTable detail={d} />}
      <ModalityTable detail={d} />
      <JudgeCheckTable detail={d} />
      {d.charts.map((chart) => (
        <div class="charts">
          {d.charts.length > 1 ? <h3>{chart.model}</h3> : null}
          {chart.depth ? <Figure spec={chart.depth} label="score against k" /> : null}
          {chart.pBest ? <Figure spec={chart.pBest} label="P(best k)" /> : null}
          {chart.cost ? <Figure spec={chart.cost} label="score against cost" /> : null}
        </div>
      ))}
      {d.groupKeys.length ? (
        <>
          <h2>Groups</h2>
          <div class="filters">
            <Choice label="by" name="group key" value={groupKey} options={d.groupKeys} onChange={(value) => set({ groups: value })} />
          </div>
          <GroupsTable detail={d} groupKey={groupKey} />
        </>
      ) : null}
    </section>
  );
}

/** The latest earlier run of the same experiment, and its best condition against the same one here. */
function Previous({ detail }: { detail: RunDetail }) {
  const api = useApi();
  const runs = useLoad(() => api.runs(), [detail.run.id]);
  const mine = detail.run;
  const previous = (runs.data ?? [])
    .filter((r) => r.id !== mine.id && r.experiment === mine.experiment && r.startedAt !== null && mine.startedAt !== null && r.startedAt < mine.startedAt)
    .sort((a, b) => (a.startedAt! < b.startedAt! ? 1 : -1))[0];
  if (!previous) return null;
  const best = mine.best;
  const shared = best && previous.conditions.includes(best.condition) && previous.models.includes(best.model);
  return (
    <p class="meta previous">
      previous run of {mine.experiment}: <Link href={runPath(previous.id)}>{previous.id}</Link>
      {shared ? (
        <> · <Link href={to('/compare', { ar: previous.id, am: best.model, ac: best.condition, br: mine.id, bm: best.model, bc: best.condition })}>compare {best.condition}: this run against the previous</Link></>
      ) : null}
    </p>
  );
}

function CompareForm({ detail }: { detail: RunDetail }) {
  const [, navigate] = useLocation();
  const first = detail.cells.find((c) => c.condition === detail.baseline) ?? detail.cells[0];
  const last = detail.cells[detail.cells.length - 1];
  const submit = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const [am, ac] = (form.elements.namedItem('a') as HTMLSelectElement).value.split('\u0000');
    const [bm, bc] = (form.elements.namedItem('b') as HTMLSelectElement).value.split('\u0000');
    navigate(to('/compare', { ar: detail.run.id, am, ac, br: detail.run.id, bm, bc }));
  };
  if (!first || !last) return null;
  /** A drop-down of the run's conditions, `chosen` selected. */
  const pick = (name: 'a' | 'b', chosen: CellView) => (
    <select name={name} aria-label={`compare ${name.toUpperCase()}`} value={`${chosen.model}\u0000${chosen.condition}`}>
      {detail.cells.map((c) => (
        <option value={`${c.model}\u0000${c.condition}`}>{detail.run.models.length > 1 ? `${c.model} · ${c.condition}` : c.condition}</option>
      ))}
    </select>
  );
  return (
    <form class="compare-form" onSubmit={submit}>
      compare {pick('a', first)} with {pick('b', last)} <button type="submit">compare</button>
    </form>
  );
}

function ConditionsTable({ detail }: { detail: RunDetail }) {
  const many = detail.run.models.length > 1;
  const diagnosed = detail.cells.some((c) => decompositionOf(c.diagnostics));
  // Runs from before tests have no p; the column appears when the summary carries one.
  const tested = detail.cells.some((c) => c.paired?.p != null);
  const family = detail.cells.find((c) => c.paired?.family)?.paired?.family;
  return (
    <div class="scroll">
      <Table
        class="conditions"
        cols={[
          many ? 'model' : null,
          'condition',
          'method',
          'retriever',
          'k',
          <th title={metricInfo(detail.metric ?? '').description}>{meanHeader(detail.metric ?? '')}</th>,
          '95% CI',
          `Δ vs ${detail.baseline} [95% CI]`,
          tested ? <th title={family ? `paired sign-flip test; Holm and BH adjusted over the family: ${family}` : 'paired sign-flip test'}>p (Holm, BH)</th> : null,
          diagnosed ? 'helped / hurt / same' : null,
          ...['tokens', 'price', 'scored', 'failed', 'empty', ''],
        ]}
      >
        {detail.cells.map((c) => {
          const dec = decompositionOf(c.diagnostics);
          return (
            <tr data-condition={c.condition}>
              {many ? <td>{c.model}</td> : null}
              <td>
                <Link href={runPath(detail.run.id, '/answers', { model: c.model, condition: c.condition })}>{c.condition}</Link>
              </td>
              <td>{c.strategy}</td>
              <td>{c.retriever ?? '–'}</td>
              <td class="num">{depthText(c)}</td>
              <td class="num">
                <b>{fmt(c.score.mean)}</b>
              </td>
              <td class="num meta">{ci(c.score.ciLow, c.score.ciHigh)}</td>
              <td class="num">{c.paired ? `${signed(c.paired.meanDiff)} ${ci(c.paired.ciLow, c.paired.ciHigh)}` : '–'}</td>
              {tested ? <td class="num">{c.paired?.p != null ? `${pValue(c.paired.p)} (${pValue(c.paired.pHolm)}, ${pValue(c.paired.pBH)})` : '–'}</td> : null}
              {diagnosed ? <td class="num">{dec ? `${dec.helped.n} / ${dec.hurt.n} / ${dec.unchanged.n}` : '–'}</td> : null}
              <td class="num">
                {fmt(tokensOf(c), 0)}
                {c.cost?.estimatedTokens ? '*' : ''}
              </td>
              <td class="num">{c.cost?.price != null ? c.cost.price.toPrecision(3) : '–'}</td>
              <td class="num">
                {c.scored}/{c.items}
              </td>
              <td class="num">{c.failed.generation + c.failed.judge}</td>
              <td class="num">{c.empty}</td>
              <td>{c.condition !== detail.baseline ? <Link href={compareLink(detail.run.id, c.model, detail.baseline, c.condition)}>vs {detail.baseline}</Link> : null}</td>
            </tr>
          );
        })}
      </Table>
      {family ? <p class="meta">p: paired sign-flip permutation test of Δ vs {detail.baseline}; Holm (family-wise error) and Benjamini–Hochberg (false discoveries) adjusted over the family: {family}</p> : null}
    </div>
  );
}

function PivotTable({ detail, rows, cols }: { detail: RunDetail; rows: Factor; cols: Factor }) {
  const pivot = pivotCells(detail.cells, rows, cols);
  return (
    <Table class="pivot" scroll cols={[`${rows} \\ ${cols}`, ...pivot.cols]}>
      {pivot.rows.map((r, i) => (
        <tr>
          <th>{r}</th>
          {pivot.cols.map((_, j) => (
            <td class="num">
              {pivot.cells[i]![j]!.map((cell) => (
                <div title={`${cell.model} · ${cell.condition}`}>
                  <b>{fmt(cell.score.mean)}</b> <span class="meta">{ci(cell.score.ciLow, cell.score.ciHigh)}</span>
                  {cell.paired ? <span class="meta"> Δ {signed(cell.paired.meanDiff)}</span> : null}
                  {pivot.cells[i]![j]!.length > 1 ? <span class="meta"> ({FACTORS.filter((f) => f !== rows && f !== cols).map((f) => factorValue(cell, f)).join(' ')})</span> : null}
                </div>
              ))}
            </td>
          ))}
        </tr>
      ))}
    </Table>
  );
}

function GroupsTable({ detail, groupKey }: { detail: RunDetail; groupKey: string }) {
  const values = detail.groupValues[groupKey] ?? [];
  return (
    <Table class="groups" scroll cols={[groupKey, ...detail.cells.map((c) => (detail.run.models.length > 1 ? `${c.model} · ${c.condition}` : c.condition))]}>
      {values.map((v) => (
        <tr>
          <th>
            <Link href={runPath(detail.run.id, '/answers', { model: detail.cells[0]?.model, condition: detail.cells[0]?.condition, group: `${groupKey}=${v}` })}>{v}</Link>
          </th>
          {detail.cells.map((c) => {
            const g = c.byGroup[groupKey]?.[v];
            return (
              <td class="num" title={g ? `n = ${g.n} ${ci(g.ciLow, g.ciHigh)}` : ''}>
                {g ? fmt(g.mean) : '–'}
                {g ? <span class="meta"> ({g.n})</span> : null}
              </td>
            );
          })}
        </tr>
      ))}
    </Table>
  );
}
