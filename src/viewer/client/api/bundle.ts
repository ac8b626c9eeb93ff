import type { AnswerDetail, AnswerPage, AnswerQuery, CompareQuery, CompareResult, ImageView, RunDetail, RunListEntry, ViewerApi } from '../../api.js';
import { cellFileKey, chunkOf, compareResult, filterAnswerRows, type BundleRow, type BundleRunFile } from '../../queries.js';

/** What a bundle's `data/runs.js` sets before the client loads. */
export interface BundleIndex {
  runs: RunListEntry[];
  /** run id → its data folder (`r<n>`). */
  folders: Record<string, string>;
}

declare global {
  interface Window {
    __HISRAG_BUNDLE__?: BundleIndex;
    __hisragData?: (name: string, value: unknown) => void;
  }
}

const pending = new Map<string, { promise: Promise<unknown>; resolve: (value: unknown) => void }>();

/**
 * Loads one data file of the bundle: a script that calls `__hisragData(name, value)` (scripts load
 * from `file://`, where `fetch` does not). Each file is loaded once.
 */
function load<T>(name: string): Promise<T> {
  let entry = pending.get(name);
  if (!entry) {
    let resolve!: (value: unknown) => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<unknown>((res, rej) => ((resolve = res), (reject = rej)));
    entry = { promise, resolve };
    pending.set(name, entry);
    const script = document.createElement('script');
    script.src = `data/${name}.js`;
    script.onerror = () => {
      pending.delete(name);
      reject(new Error(`not found: data/${name}.js`));
    };
    document.head.appendChild(script);
  }
  return entry.promise as Promise<T>;
}

window.__hisragData = (name, value) => {
  const entry = pending.get(name);
  if (entry) entry.resolve(value);
  else pending.set(name, { promise: Promise.resolve(value), resolve: () => {} });
};

/** A static bundle's data (`hisrag view --bundle`): the same queries, run on its files in the browser. */
export class BundleApi implements ViewerApi {
  readonly live = false;
  constructor(private readonly index: BundleIndex) {}

  private folder(run: string): string {
    const folder = this.index.folders[run];
    if (!folder) throw new Error('not found');
    return folder;
  }
  private runFile(run: string): Promise<BundleRunFile> {
    return load<BundleRunFile>(`${this.folder(run)}/run`);
  }
  private async rows(run: string, model: string, condition: string): Promise<BundleRow[]> {
    const file = await this.runFile(run);
    const n = file.cellFiles[cellFileKey(model, condition)];
    if (n === undefined) throw new Error('not found');
    return load<BundleRow[]>(`${this.folder(run)}/c${n}`);
  }

  async runs(): Promise<RunListEntry[]> {
    return this.index.runs;
  }
  async run(id: string): Promise<RunDetail> {
    return (await this.runFile(id)).detail;
  }
  async answers(query: AnswerQuery): Promise<AnswerPage> {
    const rows = await this.rows(query.run, query.model, query.condition);
    const other = query.differsFrom ? new Map((await this.rows(query.run, query.model, query.differsFrom)).map((r) => [r.itemKey, r])) : undefined;
    return filterAnswerRows(rows, query, other);
  }
  async answer(run: string, key: string): Promise<AnswerDetail> {
    const file = await this.runFile(run);
    const chunk = await load<Record<string, AnswerDetail>>(`${this.folder(run)}/i${chunkOf(key, file.chunks)}`);
    const detail = chunk[key];
    if (!detail) throw new Error('not found');
    return detail;
  }
  async compare(query: CompareQuery): Promise<CompareResult> {
    const [fileA, fileB] = await Promise.all([this.runFile(query.a.run), this.runFile(query.b.run)]);
    const [rowsA, rowsB] = await Promise.all([this.rows(query.a.run, query.a.model, query.a.condition), this.rows(query.b.run, query.b.model, query.b.condition)]);
    const result = compareResult(query, fileA.detail, fileB.detail, rowsA, rowsB);
    if (!result) throw new Error('not found');
    return result;
  }
  reportUrl(): string | null {
    return null;
  }
  /** A bundle carries the thumbnails its answers show, and no full-size image. */
  imageUrl(_run: string, image: ImageView, size: 'thumb' | 'full'): string | null {
    return size === 'thumb' ? (image.thumbFile ?? null) : null;
  }
}
