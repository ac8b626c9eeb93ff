import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect, useReducer, useState } from 'preact/hooks';
import type { IndexState, RunDetail, RunListEntry, ViewerApi } from '../api.js';
import { useSearchParams } from './router.js';

export { useVirtualizer } from './virtual.js';

/** The data backend every component reads through: the live server or a bundle's files. */
export const ApiContext = createContext<ViewerApi | null>(null);

export function useApi(): ViewerApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('no viewer API');
  return api;
}

export type Loaded<T> = { data: T | null; error: string | null; loading: boolean };

/** Runs `load` whenever `deps` change (the last call wins); `refreshMs` polls while it returns true. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], poll?: (data: T) => number | null): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ data: null, error: null, loading: true });
  const [tick, bump] = useReducer((x: number) => x + 1, 0);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => {
        if (!live) return;
        setState({ data, error: null, loading: false });
        const every = poll?.(data);
        if (every) timer = setTimeout(bump, every);
      },
      (error: unknown) => live && setState({ data: null, error: (error as Error).message, loading: false }),
    );
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [...deps, tick]);
  return state;
}

/** A run's detail; the live server's is polled while the run is in progress or still being indexed. */
export function useRunDetail(id: string): Loaded<RunDetail> {
  const api = useApi();
  // Polled while the run is written, indexed, or its judge check refreshed after a label was saved.
  return useLoad(() => api.run(id), [id], (d) => (api.live && (d.run.status === 'in progress' || d.run.index?.state === 'indexing' || d.labelsStale?.refreshing) ? 1500 : null));
}

/** The view's URL parameters, and a setter of some of them (an empty value removes one) that replaces the history entry. */
export function useViewParams(): [URLSearchParams, (patch: Record<string, string>) => void] {
  const [params, setParams] = useSearchParams();
  const set = (patch: Record<string, string>) =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      for (const [key, value] of Object.entries(patch)) {
        if (value) next.set(key, value);
        else next.delete(key);
      }
      return next;
    }, { replace: true });
  return [params, set];
}

/** A path of the hash router with its parameters; always with `?`, so that moving on clears the old ones. */
export function to(path: string, params?: Record<string, string | number | undefined | null> | URLSearchParams): string {
  const p = params instanceof URLSearchParams ? params : new URLSearchParams();
  if (!(params instanceof URLSearchParams)) for (const [k, v] of Object.entries(params ?? {})) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  return `${path}?${p}`;
}

/** A run's page (`page`: `/answers`, `/answer`, `/label` …) as a router path. */
export const runPath = (id: string, page = '', params?: Record<string, string | number | undefined | null>): string => to(`/run/${encodeURIComponent(id)}${page}`, params);

export const fmt = (v: number | null | undefined, digits = 2): string => (v === null || v === undefined || Number.isNaN(v) ? '–' : v.toFixed(digits));
export const signed = (v: number | null | undefined, digits = 2): string => {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  const text = v.toFixed(digits);
  // No "-0": a difference that rounds to zero is zero.
  return Number(text) === 0 ? (0).toFixed(digits) : `${v > 0 ? '+' : ''}${text}`;
};
export const ci = (lo: number | null | undefined, hi: number | null | undefined, digits = 2): string => (lo === null || lo === undefined || hi === null || hi === undefined ? '' : `[${fmt(lo, digits)}, ${fmt(hi, digits)}]`);
export const when = (iso: string | null): string => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '–');

/**
 * A table of a header row and the rows given: in `cols`, a string is a plain <th>; an element (a <th>
 * with attributes) or null stands as given. `scroll`: in a box that scrolls sideways.
 */
export function Table(props: { class: string; cols: ComponentChildren[]; caption?: string; scroll?: boolean; children: ComponentChildren }) {
  const table = (
    <table class={props.class}>
      {props.caption !== undefined ? <caption>{props.caption}</caption> : null}
      <thead>
        <tr>{props.cols.map((c) => (typeof c === 'string' ? <th>{c}</th> : c))}</tr>
      </thead>
      <tbody>{props.children}</tbody>
    </table>
  );
  return props.scroll ? <div class="scroll">{table}</div> : table;
}

/**
 * A drop-down: options as values (shown as they are) or [value, text] pairs; with `label`, inside a
 * <label> that shows it (`name`, its accessible name, defaults to it).
 */
export function Choice(props: { label?: string; name?: string; value: string; options: (string | [string, string])[]; onChange: (value: string) => void }) {
  const select = (
    <select aria-label={props.name ?? props.label} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
      {props.options.map((o) => (typeof o === 'string' ? <option value={o}>{o}</option> : <option value={o[0]}>{o[1]}</option>))}
    </select>
  );
  if (props.label === undefined) return select;
  return (
    <label>
      {props.label} {select}
    </label>
  );
}

export function Status({ value }: { value: string }) {
  return <span class={`status status-${value.replace(/\s+/g, '-')}`}>{value}</span>;
}

export function Failure({ error }: { error: string }) {
  return <p class="error" role="alert">{error === 'not found' ? 'Not found: this run, condition or answer is not among the runs served.' : error}</p>;
}

/** What a page shows before its data is in: why it failed, or that it is loading. */
export const Pending = ({ state, what }: { state: Loaded<unknown>; what: string }) => (state.error ? <Failure error={state.error} /> : <p class="loading">{what}</p>);

/** A value that follows `value` after `ms` without change (search boxes). */
export function useDebounced<T>(value: T, ms: number): T {
  const [shown, setShown] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setShown(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return shown;
}

/** How far the live server's background indexing of a run's answers is, e.g. "45%". */
export const indexedShare = (index: IndexState): string => `${index.totalBytes ? Math.floor((100 * index.bytes) / index.totalBytes) : 100}%`;

/** A note while the server is still indexing a run's answers (its conditions come from summary.json meanwhile; answers and search wait). */
export function Indexing({ run, index }: { run?: RunListEntry; index?: IndexState }) {
  const state = index ?? run?.index;
  if (!state || state.state !== 'indexing') return null;
  return (
    <p class="meta indexing" role="status">
      Indexing this run's answers: {indexedShare(state)} ({state.answers} answers so far). Answers, search and compare are ready when it is done.
    </p>
  );
}

/** A p-value as the terminal and the report print it. */
export const pValue = (p: number | null | undefined) => (p == null || Number.isNaN(p) ? '–' : p < 0.001 ? '<0.001' : p.toFixed(3));
