import { Link } from '../router.js';
import type { RunListEntry } from '../../api.js';
import { Choice, ci, fmt, indexedShare, Pending, runPath, Status, Table, useApi, useLoad, useViewParams, when } from '../util.js';

type Column = { key: string; label: string; value: (r: RunListEntry) => string | number | null };

const COLUMNS: Column[] = [
  { key: 'experiment', label: 'experiment', value: (r) => r.experiment },
  { key: 'started', label: 'started', value: (r) => r.startedAt },
  { key: 'status', label: 'status', value: (r) => r.status },
  { key: 'models', label: 'models', value: (r) => r.models.join(', ') },
  { key: 'conditions', label: 'conditions', value: (r) => r.conditions.length },
  { key: 'items', label: 'items', value: (r) => r.items },
  { key: 'best', label: 'best condition', value: (r) => r.best?.mean ?? null },
  { key: 'tokens', label: 'tokens / answer', value: (r) => r.cost.tokens },
  { key: 'price', label: 'price / answer', value: (r) => r.cost.price },
  { key: 'failures', label: 'failed', value: (r) => r.failures },
];

/** Every run served: sortable by any column, filtered by text, benchmark and model. */
export function RunsView() {
  const api = useApi();
  const [params, set] = useViewParams();
  const runs = useLoad(() => api.runs(), [], () => (api.live ? 2000 : null));
  const q = params.get('q') ?? '';
  const benchmark = params.get('benchmark') ?? '';
  const model = params.get('model') ?? '';
  const sort = params.get('sort') ?? 'started';
  const desc = params.get('dir') !== 'asc';
  if (!runs.data) return <Pending state={runs} what="Loading runs…" />;
  const all = runs.data;
  const benchmarks = [...new Set(all.flatMap((r) => r.benchmarks))].sort();
  const models = [...new Set(all.flatMap((r) => r.models))].sort();
  const needle = q.trim().toLowerCase();
  const column = COLUMNS.find((c) => c.key === sort) ?? COLUMNS[1]!;
  const shown = all
    .filter((r) => !needle || `${r.id} ${r.experiment} ${r.models.join(' ')} ${r.conditions.join(' ')}`.toLowerCase().includes(needle))
    .filter((r) => !benchmark || r.benchmarks.includes(benchmark))
    .filter((r) => !model || r.models.includes(model))
    .sort((a, b) => {
      const x = column.value(a), y = column.value(b);
      if (x === y) return a.id < b.id ? -1 : 1;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * (desc ? -1 : 1);
    });
  return (
    <section>
      <h1>Runs</h1>
      <div class="filters">
        <input type="search" placeholder="filter runs…" aria-label="filter runs" value={q} onInput={(e) => set({ q: e.currentTarget.value })} />
        <Choice label="benchmark" value={benchmark} options={[['', 'all'], ...benchmarks]} onChange={(value) => set({ benchmark: value })} />
        <Choice label="model" value={model} options={[['', 'all'], ...models]} onChange={(value) => set({ model: value })} />
        <span class="meta">
          {shown.length} of {all.length} runs
        </span>
      </div>
      <Table
        class="runs"
        scroll
        cols={[
          'run',
          ...COLUMNS.map((c) => (
            <th>
              <button class="sort" onClick={() => set({ sort: c.key, dir: sort === c.key && desc ? 'asc' : 'desc' })}>
                {c.label}
                {sort === c.key ? (desc ? ' ▼' : ' ▲') : ''}
              </button>
            </th>
          )),
        ]}
      >
        {shown.map((r) => (
          <tr data-run={r.id}>
            <td>
              <Link href={runPath(r.id)}>{r.id}</Link>
            </td>
            <td>{r.experiment}</td>
            <td>{when(r.startedAt)}</td>
            <td>
              <Status value={r.status} />
              {r.stoppedBecause ? <span class="meta" title={r.stoppedBecause}> ⚠</span> : null}
            </td>
            <td>{r.models.join(', ')}</td>
            <td>{r.conditions.length}</td>
            <td class="num">
              {r.items}
              <span class="meta">
                {' '}
                ({r.answers}
                {r.total !== null && r.total !== r.answers ? ` / ${r.total}` : ''} answers)
                {r.index?.state === 'indexing' ? <span class="indexing"> · indexing {indexedShare(r.index)}</span> : null}
              </span>
            </td>
            <td>
              {r.best ? (
                <>
                  {r.best.condition} <b>{fmt(r.best.mean)}</b> <span class="meta">{ci(r.best.ciLow, r.best.ciHigh)}</span>
                </>
              ) : (
                '–'
              )}
            </td>
            <td class="num">
              {fmt(r.cost.tokens, 0)}
              {r.cost.estimated ? '*' : ''}
            </td>
            <td class="num">{r.cost.price !== null ? r.cost.price.toPrecision(3) : '–'}</td>
            <td class="num">{r.failures}</td>
          </tr>
        ))}
      </Table>
      <p class="meta">* tokens estimated where the endpoint reported no usage.</p>
    </section>
  );
}
