import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { InputError } from '../errors.js';
import { RUN_FILES } from '../runFiles/runDir.js';
import type { AnswerDetail, AnswerPage, AnswerQuery, CompareQuery, CompareResult, IndexCounters, IndexingStatus, RunDetail, RunListEntry } from './api.js';
import { answersPage } from './answerQueries.js';
import { compareResult } from './queries.js';
import { VIEW_CACHE_ENV, viewCacheDir, viewCacheLimit } from './cacheDir.js';
import { markUsed, namesIn, pruneCache, type PruneResult } from './cacheMaintenance.js';
import { fullGc } from './fullGc.js';
import { insideFile } from './runFileReads.js';
import { RunIndex } from './runIndex.js';

/** New runs in the given folders are looked for at most this often. */
const RESCAN_MS = 1000;
/** Background indexing waits for this long without a request between its steps. */
const QUIET_MS = 15;
/** What the run list, or a run's conditions, indexes within the request at most (a few tens of ms). */
const LIST_INLINE_BYTES = 256 * 1024;
/** The background indexing asks for a full GC after about this many bytes indexed (see fullGc). */
const GC_EVERY_BYTES = 16 * 1024 * 1024;

const isRunDir = (dir: string) => insideFile(dir, RUN_FILES.config) !== null;

/** Stores not closed yet: their indexes are closed (SQLite's WAL checkpointed) when the process exits, however it exits. */
const open = new Set<RunStore>();
let exitHook = false;

/** A path with its existing part's links resolved (the rest may not exist yet). */
function realOf(path: string): string {
  const rest: string[] = [];
  let head = resolve(path);
  for (;;) {
    try {
      return join(realpathSync(head), ...rest.reverse());
    } catch {
      const parent = dirname(head);
      if (parent === head) return resolve(path);
      rest.push(basename(head));
      head = parent;
    }
  }
}

const within = (dir: string, path: string) => {
  const rel = relative(dir, path);
  return !rel.startsWith('..') && !isAbsolute(rel);
};

/**
 * The runs a viewer serves: the run directories given, and those directly inside the folders given
 * (picked up as they appear; a link leading outside a folder is not followed). A run is listed from
 * what it summarises as soon as it is found; its answers are indexed in the background (`RunIndex`,
 * the event loop free between steps) into the cache folder, never inside a run directory.
 */
export class RunStore {
  private runs = new Map<string, RunIndex>();
  /** The run directories served (as `runs`' ids). */
  private served = new Set<string>();
  private scannedAt = 0;
  private readonly roots: { path: string; real: string; kind: 'run' | 'folder' }[];
  readonly cacheDir: string;
  /** The cache folder's bound in bytes (`pruneCache`). */
  readonly cacheLimitBytes: number;
  /** The index files of the runs this store serves: never pruned. */
  private readonly cacheFiles = new Set<string>();
  /** What this store indexed since it started. */
  readonly counters: IndexCounters = { lines: 0, bytes: 0, rebuilds: 0, extended: 0 };
  /** Run directories that could not be read (a bad config), with why. */
  readonly skipped = new Map<string, string>();
  private indexing: Promise<void> | null = null;
  /** Runs asked for before they were indexed: indexed first. */
  private wanted: string[] = [];
  private waiters: { id: string | null; resolve: () => void }[] = [];
  private closed = false;
  /** The last error of a run's indexing (a file that cannot be read): shown, not retried in a loop. */
  readonly indexErrors = new Map<string, string>();

  constructor(paths: string[], options: { cacheDir?: string; cacheLimit?: string } = {}) {
    this.roots = paths.map((p) => {
      const path = resolve(p);
      if (!existsSync(path) || !statSync(path).isDirectory()) throw new InputError(`${p}: no such folder (give run directories or folders that hold them)`);
      return { path, real: realpathSync(path), kind: isRunDir(path) ? 'run' : 'folder' };
    });
    // The viewer never writes a run directory: a cache folder inside one is refused before it is made.
    const cacheDir = realOf(viewCacheDir(options.cacheDir));
    for (const root of this.roots) {
      const inside =
        root.kind === 'run' ? within(root.real, cacheDir) : within(root.real, cacheDir) && cacheDir !== root.real && isRunDir(join(root.real, relative(root.real, cacheDir).split(sep)[0]!));
      if (inside) throw new InputError(`cache folder ${cacheDir} is inside a run directory (${root.path}): the viewer never writes a run directory; give --cache-dir (or ${VIEW_CACHE_ENV}) elsewhere`);
    }
    this.cacheLimitBytes = viewCacheLimit(options.cacheLimit);
    mkdirSync(cacheDir, { recursive: true });
    this.cacheDir = cacheDir;
    open.add(this);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => {
        for (const store of open) store.close();
      });
    }
  }

  close(): void {
    this.closed = true;
    for (const run of this.runs.values()) run.cache.close();
    this.runs.clear();
    for (const waiter of this.waiters.splice(0)) waiter.resolve();
    open.delete(this);
  }

  /** The cache file of a run directory: named by its path, so that each run keeps one index. */
  private cacheFileOf(dir: string): string {
    const name = basename(dir).replace(/[^\w.\-@+]/g, '_').slice(0, 60) || 'run';
    return join(this.cacheDir, `${name}-${createHash('sha256').update(dir).digest('hex').slice(0, 16)}.sqlite`);
  }

  /** `pruneCache` sparing the runs served here: the server calls it once the run list has been served. */
  pruneCache(): PruneResult {
    return pruneCache(this.cacheDir, { limitBytes: this.cacheLimitBytes, inUse: this.cacheFiles });
  }

  /** Looks for new run directories (throttled) and reads what they summarise; their answers are indexed in the background. */
  async scan(force = false): Promise<void> {
    if (!force && Date.now() - this.scannedAt < RESCAN_MS) return;
    for (const dir of this.runDirs()) {
      if (this.served.has(dir) || this.skipped.has(dir)) continue;
      let id = basename(dir).replace(/[^\w.\-@+]/g, '_') || 'run';
      for (let n = 2; this.runs.has(id); n++) id = `${basename(dir)}~${n}`;
      try {
        const cacheFile = this.cacheFileOf(dir);
        markUsed(cacheFile);
        this.cacheFiles.add(cacheFile);
        this.runs.set(id, new RunIndex(id, dir, cacheFile, this.counters));
        this.served.add(dir);
      } catch (error) {
        this.skipped.set(dir, (error as Error).message);
      }
    }
    this.scannedAt = Date.now();
    if (this.background) this.startIndexing();
  }

  /** The run directories the roots name: a run root, and the run directories directly inside a folder root. */
  private runDirs(): string[] {
    return this.roots.flatMap((root) => {
      if (root.kind === 'run') return [root.real];
      return namesIn(root.real).flatMap((name) => {
        try {
          const real = realpathSync(join(root.real, name));
          // Not a link that leads outside the folder, nor the cache folder.
          return real.startsWith(root.real + sep) && real !== this.cacheDir && statSync(real).isDirectory() && isRunDir(real) ? [real] : [];
        } catch {
          return []; // vanished meanwhile
        }
      });
    });
  }

  /** Whether the background indexing was started (the server starts it once it listens). */
  private background = false;
  /** Requests being answered, and when the last one ended: the background steps wait for a quiet moment. */
  private inFlight = 0;
  private lastRequestEnd = 0;

  /** Marks a request being answered (until the returned function is called): indexing steps wait meanwhile. */
  request(): () => void {
    this.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      this.lastRequestEnd = performance.now();
    };
  }

  /** Starts the background indexing (from now on, also of runs found later) when something is left to index and it is not running. */
  startIndexing(): void {
    this.background = true;
    if (this.indexing || this.closed) return;
    this.indexing = this.indexLoop().finally(() => {
      this.indexing = null;
      // Something arrived after the loop's last look (an append, a new run): go on.
      if (!this.closed && this.nextToIndex()) this.startIndexing();
    });
  }

  /** The next run with background work left: its config to check against the experiment schema, or answers to index. */
  private nextToIndex(): RunIndex | null {
    const left = (run: RunIndex) => !run.files.configChecked || (!run.ready && !this.indexErrors.has(run.id));
    while (this.wanted.length) {
      const run = this.runs.get(this.wanted[0]!);
      if (run && left(run)) return run;
      this.wanted.shift();
    }
    for (const run of this.runs.values()) if (left(run)) return run;
    return null;
  }

  /** Bytes indexed since the background loop last asked for a full GC. */
  private bytesSinceGc = 0;

  /** The background loop: one step of one run at a time (the runs asked for first), requests answered between steps. */
  private async indexLoop(): Promise<void> {
    const yieldNow = () => new Promise<void>((done) => setImmediate(done));
    const pause = () => new Promise<void>((done) => setTimeout(done, QUIET_MS));
    for (;;) {
      await yieldNow();
      // Requests first: a step waits until none is being answered and none ended just now (a client's next request follows soon).
      while (!this.closed && (this.inFlight > 0 || performance.now() - this.lastRequestEnd < QUIET_MS) && this.wanted.length === 0) await pause();
      if (this.closed) return;
      const run = this.nextToIndex();
      this.wake();
      if (!run) return;
      try {
        // The experiment schema (every registered component's module) is imported here, after the run list, never before it.
        if (!run.files.configChecked) {
          await run.files.checkConfig();
          await run.warmSummary(); // a run indexed by an earlier start
          continue;
        }
        if (run.loader.needsItems) {
          await run.loadItems();
          fullGc();
          if (this.closed) return;
        }
        const before = this.counters.bytes;
        const more = run.loader.indexStep();
        this.bytesSinceGc += this.counters.bytes - before;
        if (this.bytesSinceGc >= GC_EVERY_BYTES) {
          this.bytesSinceGc = 0;
          fullGc();
        }
        if (!more && run.ready) {
          run.cache.releaseMemory();
          await run.warmSummary();
        }
      } catch (error) {
        this.indexErrors.set(run.id, (error as Error).message);
      }
    }
  }

  /** Resolves the waiters whose run (or, for null, every run) is indexed. */
  private wake(): void {
    this.waiters = this.waiters.filter((w) => {
      const done = this.closed || (w.id === null ? [...this.runs.values()].every((r) => r.files.configChecked && (r.ready || this.indexErrors.has(r.id))) : (this.runs.get(w.id)?.ready ?? true) || this.indexErrors.has(w.id));
      if (done) w.resolve();
      return !done;
    });
  }

  /** Resolves once the run's answers are indexed (it is indexed next); at once for an unknown id. */
  whenIndexed(id: string): Promise<void> {
    const run = this.runs.get(id);
    if (!run || run.ready || this.indexErrors.has(id)) return Promise.resolve();
    if (!this.wanted.includes(id)) this.wanted.unshift(id);
    return new Promise((resolvePromise) => {
      this.waiters.push({ id, resolve: resolvePromise });
      this.startIndexing();
    });
  }

  /** Resolves once every run's answers are indexed and its config checked. */
  whenAllIndexed(): Promise<void> {
    return new Promise((resolvePromise) => {
      this.waiters.push({ id: null, resolve: resolvePromise });
      this.wake();
      this.startIndexing();
    });
  }

  /** The cache folder and how far indexing is: for `/api/indexing`. */
  indexingStatus(): IndexingStatus {
    const states = [...this.runs.values()].map((r) => r.indexState);
    return {
      cacheDir: this.cacheDir,
      runs: states.length,
      ready: states.filter((s) => s.state === 'ready').length,
      bytes: states.reduce((n, s) => n + s.bytes, 0),
      totalBytes: states.reduce((n, s) => n + s.totalBytes, 0),
      indexed: { ...this.counters },
    };
  }

  /** The run with this id, its new answers read (`RunIndex.refresh`); null for any other id. */
  get(id: string, inlineBytes?: number): RunIndex | null {
    const run = this.runs.get(id) ?? null;
    if (run) {
      try {
        // Before the run list has been served, nothing is indexed within a request (the list first).
        if (run.refresh(this.background ? inlineBytes : 0) && this.background) this.startIndexing();
      } catch {
        // a run directory removed meanwhile keeps what was read
      }
    }
    return run;
  }

  ids(): string[] {
    return [...this.runs.keys()];
  }

  /** The run list: appends indexed within it up to LIST_INLINE_BYTES over all runs, so that it never waits behind indexing. */
  async list(): Promise<RunListEntry[]> {
    await this.scan();
    const until = this.counters.bytes + LIST_INLINE_BYTES;
    return this.ids().map((id) => this.get(id, Math.max(0, until - this.counters.bytes))!.listEntry());
  }

  /** A run's page: from its summary.json at once; a summary computed from the answers waits for the config's check (`warmSummary`). */
  async run(id: string): Promise<RunDetail | null> {
    const run = this.get(id, LIST_INLINE_BYTES);
    if (!run) return null;
    await run.warmSummary();
    return run.detail();
  }

  /** A page of answers; while the run is still being indexed, no rows but where indexing stands (and the run is indexed next). */
  answers(query: AnswerQuery): AnswerPage | null {
    const run = this.get(query.run);
    if (!run) return null;
    if (!run.ready) {
      void this.whenIndexed(run.id);
      return { total: 0, offset: query.offset ?? 0, rows: [], indexing: run.indexState };
    }
    return answersPage(run.cache, query);
  }

  /** An answer's page, once its run is indexed (it is indexed next). */
  async answer(run: string, key: string): Promise<AnswerDetail | null> {
    await this.whenIndexed(run);
    return this.get(run)?.answer(key) ?? null;
  }

  async compare(query: CompareQuery): Promise<CompareResult | null> {
    await Promise.all([this.whenIndexed(query.a.run), this.whenIndexed(query.b.run)]);
    const runA = this.get(query.a.run);
    const runB = query.b.run === query.a.run ? runA : this.get(query.b.run);
    if (!runA || !runB) return null;
    await Promise.all([runA.warmSummary(), runB.warmSummary()]);
    return compareResult(query, runA.detail(), runB.detail(), runA.scoreRows(query.a.model, query.a.condition), runB.scoreRows(query.b.model, query.b.condition));
  }
}
