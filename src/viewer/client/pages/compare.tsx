import { Link, useLocation, useSearchParams } from '../router.js';
import { compareQueryFromParams, compareQueryToParams, type CompareQuery, type CompareResult, type ConditionRef, type CostSide, type Outcome, type RunListEntry } from '../../api.js';
import { decompositionOf } from '../../queries.js';
import { deltaText } from '../../../scoring/metrics.js';
import { Choice, ci, Failure, fmt, pValue, runPath, signed, Table, to, useApi, useLoad } from '../util.js';

/** Condition B against condition A (same run or another over the same items): paired Δ, cost Δ, items better / worse / same. */
export function CompareView() {
  const api = useApi();
  const [params] = useSearchParams();
  const [, navigate] = useLocation();
  const query = compareQueryFromParams(params);
  const runs = useLoad(() => api.runs(), []);
  const key = query ? compareQueryToParams(query).toString() : '';
  const result = useLoad(() => (query ? api.compare(query) : Promise.resolve(null)), [key]);
  const go = (next: CompareQuery) => navigate(to('/compare', compareQueryToParams(next)));
  return (
    <section>
      <h1>Compare</h1>
      {runs.data ? <Pickers runs={runs.data} query={query} onChange={go} /> : null}
      {!query ? <p>Choose two conditions.</p> : result.error ? <Failure error={result.error} /> : !result.data ? <p class="loading">Comparing…</p> : <Result query={query} result={result.data} onChange={go} />}
    </section>
  );
}

function Pickers({ runs, query, onChange }: { runs: RunListEntry[]; query: CompareQuery | null; onChange: (q: CompareQuery) => void }) {
  const first = runs[0];
  if (!first) return <p>No runs.</p>;
  const a = query?.a ?? { run: first.id, model: first.models[0] ?? '', condition: first.baseline };
  const b = query?.b ?? { run: first.id, model: first.models[0] ?? '', condition: first.conditions[first.conditions.length - 1] ?? '' };
  const side = (label: string, ref: ConditionRef, set: (r: ConditionRef) => void) => {
    const run = runs.find((r) => r.id === ref.run) ?? first;
    const chooseRun = (id: string) => {
      const r = runs.find((x) => x.id === id)!;
      set({ run: r.id, model: r.models.includes(ref.model) ? ref.model : (r.models[0] ?? ''), condition: r.conditions.includes(ref.condition) ? ref.condition : r.baseline });
    };
    return (
      <fieldset class="picker">
        <legend>{label}</legend>
        <Choice name={`${label} run`} value={run.id} options={runs.map((r) => r.id)} onChange={chooseRun} />
        {run.models.length > 1 ? <Choice name={`${label} model`} value={ref.model} options={run.models} onChange={(model) => set({ ...ref, model })} /> : null}
        <Choice name={`${label} condition`} value={ref.condition} options={run.conditions} onChange={(condition) => set({ ...ref, condition })} />
      </fieldset>
    );
  };
  return (
    <div class="filters">
      {side('A', a, (r) => onChange({ a: r, b, outcome: 'all' }))}
      {side('B', b, (r) => onChange({ a, b: r, outcome: 'all' }))}
    </div>
  );
}

const COST_ROWS: { label: string; pick: (c: CostSide) => number | null; digits: number }[] = [
  { label: 'tokens / answer', pick: (c) => c.tokens, digits: 0 },
  { label: 'price / answer', pick: (c) => c.price, digits: 5 },
  { label: 'retrieval calls', pick: (c) => c.retrievalCalls, digits: 1 },
  { label: 'generation calls', pick: (c) => c.generationCalls, digits: 1 },
  { label: 'ms / answer', pick: (c) => c.durationMs, digits: 0 },
];

/** B − A corrected with the run's human labels (PPI++) beside the judge-only Δ, whose labels they are, and whether that is stale. */
function Corrected({ value }: { value: NonNullable<CompareResult['corrected']> }) {
  const d = value.difference;
  return (
    <div class="compare-corrected">
      <p>
        with labels ({d.labelled} of {d.n} pairs labelled): Δ judge-only <span class="delta">{signed(d.judgeOnly.estimate, 1)}</span> <span class="meta">{ci(d.judgeOnly.ciLow, d.judgeOnly.ciHigh, 1)}</span> · Δ corrected (PPI++) <span class="delta corrected">{signed(d.ppiPlusPlus.estimate, 1)}</span> <span class="meta">{ci(d.ppiPlusPlus.ciLow, d.ppiPlusPlus.ciHigh, 1)}</span>
      </p>
      {value.basis.map((line) => (
        <p class="meta">{line}</p>
      ))}
      {value.stale ? <p class="labels-stale">{value.stale}</p> : null}
    </div>
  );
}

function Result({ query, result, onChange }: { query: CompareQuery; result: CompareResult; onChange: (q: CompareQuery) => void }) {
  const outcome = query.outcome ?? 'all';
  const name = (r: ConditionRef) => (r.run === query.a.run && r.run === query.b.run ? r.condition : `${r.run} · ${r.condition}`);
  const dec = decompositionOf(result.decomposition ? { decomposition: result.decomposition } : null);
  const offset = result.items.offset;
  const limit = query.limit ?? 100;
  return (
    <>
      <div class="compare-summary">
        <p class="headline">
          <b>{name(query.b)}</b> − <b>{name(query.a)}</b>: <span class="delta">{signed(result.meanDiff)}</span> <span class="meta">{ci(result.ciLow, result.ciHigh)}</span> on {result.n} paired items
          {result.sharePositive !== null ? <span class="meta"> · P(Δ &gt; 0) = {fmt(result.sharePositive)}</span> : null}
          {result.p != null ? <span class="meta" title={result.family ? `paired sign-flip test; Holm and BH adjusted over the run's family: ${result.family}` : 'paired sign-flip test'}> · p = {pValue(result.p)}{result.pHolm != null ? ` (Holm ${pValue(result.pHolm)}, BH ${pValue(result.pBH)})` : ''}</span> : null}
        </p>
        {result.samples ? (
          <p class="meta samples">
            repeated samples (up to {result.samples.a} an item in A, {result.samples.b} in B): each item's samples reduced by their {result.samples.reducer}; CI by the two-stage bootstrap (items, then samples)
          </p>
        ) : null}
        {result.corrected ? <Corrected value={result.corrected} /> : null}
        <p class="meta">
          A mean {fmt(result.a.mean)} ({result.a.scored}/{result.a.answers} scored) · B mean {fmt(result.b.mean)} ({result.b.scored}/{result.b.answers} scored)
          {result.unpaired.a || result.unpaired.b ? ` · unpaired: ${result.unpaired.a} only in A, ${result.unpaired.b} only in B` : ''}
        </p>
        <div class="outcomes" role="group" aria-label="outcome">
          {(['all', 'worse', 'better', 'same'] as const).map((o) => (
            <button class={outcome === o ? 'active' : ''} data-outcome={o} onClick={() => onChange({ ...query, outcome: o, offset: 0 })}>
              {o === 'all' ? `all (${result.n})` : `${o} (${result.counts[o as Outcome]})`}
            </button>
          ))}
        </div>
        <Table class="cost" cols={['cost', 'A', 'B', 'Δ']}>
          {COST_ROWS.map((row) => {
            const x = row.pick(result.cost.a), y = row.pick(result.cost.b);
            return (
              <tr>
                <td>{row.label}</td>
                <td class="num">{fmt(x, row.digits)}</td>
                <td class="num">{fmt(y, row.digits)}</td>
                <td class="num">{x !== null && y !== null ? signed(y - x, row.digits) : '–'}</td>
              </tr>
            );
          })}
        </Table>
        {dec ? (
          <>
            <p class="diagnostics">
              Diagnostics ({result.metric ? deltaText(dec.delta, result.metric) : `δ ${dec.delta}`}): helped {dec.helped.n} ({signed(dec.helped.contribution)}), hurt {dec.hurt.n} ({signed(dec.hurt.contribution)}), unchanged {dec.unchanged.n} ({signed(dec.unchanged.contribution)})
            </p>
            <Causes title="by where the gold evidence ended up" value={(result.decomposition as { byEvidence?: unknown }).byEvidence} />
            <Causes title="by the best rank of gold" value={(result.decomposition as { byGoldRank?: unknown }).byGoldRank} />
          </>
        ) : null}
      </div>
      <Table class="items" cols={['item', 'category', 'question', 'A', 'B', 'Δ']}>
        {result.items.rows.map((item) => (
          <tr data-item={item.itemKey} class={item.diff < 0 ? 'worse' : item.diff > 0 ? 'better' : ''}>
            <td>
              <Link href={runPath(query.b.run, '/answer', { key: item.keyB, vsRun: query.a.run, vsKey: item.keyA })}>{item.itemId}</Link>
            </td>
            <td>{item.category}</td>
            <td class="text">{item.question}</td>
            <td class="num">{fmt(item.scoreA)}</td>
            <td class="num">{fmt(item.scoreB)}</td>
            <td class="num">{signed(item.diff)}</td>
          </tr>
        ))}
      </Table>
      <p class="pager">
        {offset > 0 ? <button onClick={() => onChange({ ...query, offset: Math.max(0, offset - limit) })}>previous</button> : null}{' '}
        <span class="meta">
          {result.items.total ? `${offset + 1}–${Math.min(result.items.total, offset + limit)} of ${result.items.total}` : 'no items'}
        </span>{' '}
        {offset + limit < result.items.total ? <button onClick={() => onChange({ ...query, offset: offset + limit })}>next</button> : null}
      </p>
    </>
  );
}

const EVIDENCE_NAMES: Record<string, string> = { inPrompt: 'in the final prompt', retrievedNotInPrompt: 'retrieved, not in the prompt', notRetrieved: 'not retrieved' };

/** A decomposition's split of helped / hurt / unchanged items (diagnostics `byEvidence`, `byGoldRank`), read defensively. */
function Causes({ title, value }: { title: string; value: unknown }) {
  if (!value || typeof value !== 'object') return null;
  const groups = value as Record<string, Record<string, { n?: unknown; contribution?: unknown }>>;
  const columns = [...new Set(Object.values(groups).flatMap((g) => (g && typeof g === 'object' ? Object.keys(g) : [])))];
  if (!columns.length) return null;
  return (
    <Table class="causes" caption={`helped / hurt items ${title}`} cols={['', ...columns.map((c) => EVIDENCE_NAMES[c] ?? c)]}>
      {(['helped', 'hurt', 'unchanged'] as const).map((row) => (
        <tr>
          <th>{row}</th>
          {columns.map((c) => {
            const share = groups[row]?.[c];
            return <td class="num">{share && typeof share.n === 'number' ? `${share.n} (${signed(Number(share.contribution ?? 0))})` : '–'}</td>;
          })}
        </tr>
      ))}
    </Table>
  );
}
