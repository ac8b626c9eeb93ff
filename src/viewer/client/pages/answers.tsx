import { useEffect, useRef, useState } from 'preact/hooks';
import { Link, useSearchParams } from '../router.js';
import { answerQueryFromParams, answerQueryToParams, numberOrUndefined, type AnswerQuery, type AnswerRow, type IndexState, type RunDetail } from '../../api.js';
import { Choice, Failure, fmt, Indexing, Pending, runPath, useApi, useDebounced, useRunDetail, useVirtualizer } from '../util.js';

const PAGE = 100;
const ROW_HEIGHT = 34;

/** A condition's answers: filters and search in the URL, rows fetched page by page as they scroll into view. */
export function AnswersView({ run }: { run: string }) {
  const detail = useRunDetail(run);
  const [params, setParams] = useSearchParams();
  if (!detail.data) return <Pending state={detail} what="Loading run…" />;
  const d = detail.data;
  const query = answerQueryFromParams(run, params);
  const cell = d.cells.find((c) => c.model === query.model && c.condition === query.condition) ?? d.cells[0];
  if (!cell) return <p>This run has no answers yet.</p>;
  const q: AnswerQuery = { ...query, model: cell.model, condition: cell.condition, offset: 0, limit: PAGE };
  const set = (patch: Partial<AnswerQuery>) => {
    const { run: _r, ...next } = { ...q, ...patch };
    const p = answerQueryToParams({ ...next, offset: 0, limit: undefined });
    setParams(p, { replace: true });
  };
  return (
    <section class="answers-page">
      <h1>
        Answers · <Link href={runPath(run)}>{d.run.experiment}</Link> <span class="meta">{d.run.id}</span>
      </h1>
      <Filters detail={d} query={q} set={set} />
      <AnswerTable query={q} version={d.run.version} />
    </section>
  );
}

function Filters({ detail, query, set }: { detail: RunDetail; query: AnswerQuery; set: (patch: Partial<AnswerQuery>) => void }) {
  const [text, setText] = useState(query.q ?? '');
  const debounced = useDebounced(text, 60);
  useEffect(() => {
    if ((debounced || undefined) !== query.q) set({ q: debounced || undefined });
  }, [debounced]);
  const cellValue = `${query.model}\u0000${query.condition}`;
  const label = (model: string, condition: string) => (detail.run.models.length > 1 ? `${model} · ${condition}` : condition);
  const chooseCell = (value: string) => {
    const [model, condition] = value.split('\u0000');
    set({ model, condition, differsFrom: query.differsFrom === condition ? undefined : query.differsFrom });
  };
  return (
    <div class="filters">
      <Choice label="condition" value={cellValue} options={detail.cells.map((c) => [`${c.model}\u0000${c.condition}`, label(c.model, c.condition)])} onChange={chooseCell} />
      <input type="search" aria-label="search" placeholder="search question, answer, reference…" value={text} onInput={(e) => setText(e.currentTarget.value)} />
      <Choice
        label="group"
        value={query.group ?? ''}
        options={[['', 'all'], ...detail.groupKeys.flatMap((k) => (detail.groupValues[k] ?? []).map((v): [string, string] => [`${k}=${v}`, `${k}: ${v}`]))]}
        onChange={(value) => set({ group: value || undefined })}
      />
      <label>
        score{' '}
        <input class="score" type="number" aria-label="minimum score" placeholder="min" value={query.scoreMin ?? ''} onChange={(e) => set({ scoreMin: numberOrUndefined(e.currentTarget.value) })} />–
        <input class="score" type="number" aria-label="maximum score" placeholder="max" value={query.scoreMax ?? ''} onChange={(e) => set({ scoreMax: numberOrUndefined(e.currentTarget.value) })} />
      </label>
      <Choice label="status" value={query.status ?? 'all'} options={['all', 'scored', 'failed', 'empty']} onChange={(value) => set({ status: value as AnswerQuery['status'] })} />
      <Choice
        label="differs from"
        value={query.differsFrom ?? ''}
        options={[['', '–'], ...detail.cells.filter((c) => c.model === query.model && c.condition !== query.condition).map((c) => c.condition)]}
        onChange={(value) => set({ differsFrom: value || undefined })}
      />
      <Choice label="sort" value={query.sort ?? 'item'} options={['item', ['score', 'score ↑'], ['-score', 'score ↓']]} onChange={(value) => set({ sort: value as AnswerQuery['sort'] })} />
    </div>
  );
}

function AnswerTable({ query, version }: { query: AnswerQuery; version: number }) {
  const api = useApi();
  const key = answerQueryToParams({ ...query, offset: 0, limit: undefined }).toString();
  const [state, setState] = useState<{ key: string; total: number | null; pages: Map<number, AnswerRow[]>; error: string | null; indexing?: IndexState }>({ key, total: null, pages: new Map(), error: null });
  // While the server is still indexing the run's answers: ask again shortly.
  const [retry, bumpRetry] = useState(0);
  const loading = useRef(new Set<string>());
  const fetchPage = (page: number, forKey: string, replace: boolean) => {
    const id = `${forKey}#${page}#${version}#${retry}`;
    if (loading.current.has(id)) return;
    loading.current.add(id);
    api.answers({ ...query, offset: page * PAGE, limit: PAGE }).finally(() => loading.current.delete(id)).then(
      (result) =>
        setState((s) => {
          if (s.key !== forKey) return s;
          if (result.indexing) {
            setTimeout(() => bumpRetry((n) => n + 1), 700);
            return { key: forKey, total: null, pages: new Map(), error: null, indexing: result.indexing };
          }
          const pages = replace ? new Map<number, AnswerRow[]>() : new Map(s.pages);
          pages.set(page, result.rows);
          return { key: forKey, total: result.total, pages, error: null };
        }),
      (error: unknown) => setState((s) => ({ ...s, error: (error as Error).message })),
    );
  };
  // A new query starts over; a new version of the run (answers written meanwhile) refreshes the first page.
  useEffect(() => {
    if (state.key !== key) setState({ key, total: null, pages: new Map(), error: null });
    fetchPage(0, key, true);
  }, [key, version, retry]);
  const scroller = useRef<HTMLDivElement>(null);
  const total = state.key === key ? (state.total ?? 0) : 0;
  const virtualizer = useVirtualizer({ count: total, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const items = virtualizer.getVirtualItems();
  useEffect(() => {
    for (const item of items) {
      const page = Math.floor(item.index / PAGE);
      if (!state.pages.has(page)) fetchPage(page, key, false);
    }
  });
  if (state.error) return <Failure error={state.error} />;
  return (
    <>
      {state.key === key && state.indexing ? <Indexing index={state.indexing} /> : null}
      <p class="meta answers-total" aria-live="polite">
        {state.key === key && state.total !== null ? `${state.total} answers` : 'searching…'}
      </p>
      <div class="table-head answer-grid" role="row">
        {['item', 'category', 'question', 'answer'].map((name) => <span>{name}</span>)}
        <span class="num">score</span>
        {query.differsFrom ? <span class="num">{query.differsFrom}</span> : <span class="num">tokens</span>}
      </div>
      <div class="virtual" ref={scroller} role="table" aria-label="answers">
        <div style={{ height: `${virtualizer.getTotalSize()}px`, position: 'relative' }}>
          {items.map((item) => {
            const row = state.pages.get(Math.floor(item.index / PAGE))?.[item.index % PAGE];
            return (
              <div key={item.key} class="answer-grid answer-row" role="row" data-key={row?.key} style={{ position: 'absolute', top: 0, left: 0, width: '100%', height: `${item.size}px`, transform: `translateY(${item.start}px)` }}>
                {row ? (
                  <>
                    <span>
                      <Link href={runPath(query.run, '/answer', { key: row.key })}>{row.itemId}</Link>
                    </span>
                    <span>{row.category}</span>
                    <span class="text" title={row.question}>{row.question}</span>
                    <span class="text" title={row.answer}>{row.empty ? <i>(empty)</i> : row.answer}</span>
                    <span class="num">{row.status === 'scored' ? fmt(row.score) : <span class="failed">{row.status}</span>}</span>
                    <span class="num">{query.differsFrom ? fmt(row.otherScore ?? null) : fmt(row.tokens, 0)}</span>
                  </>
                ) : (
                  <span class="meta">…</span>
                )}
              </div>
            );
          })}
        </div>
      </div>
    </>
  );
}
