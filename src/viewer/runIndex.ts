import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readSync, realpathSync, rmSync, statSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import Database from 'better-sqlite3';
import type { BenchmarkItem } from '../benchmarks/types.js';
import { benchmarks } from '../benchmarks/registry.js';
import type { ExperimentConfig } from '../config/experiment.js';
import { validateExperimentConfig } from '../config/load.js';
import { isGoldChunk } from '../diagnostics/evidence.js';
import { RunItemRecordSchema, type RunItemRecord } from '../runFiles/itemRecord.js';
import { RUN_FILES } from '../runFiles/runDir.js';
import type { Reducer } from '../scoring/estimators/samples.js';
import type { RunSummary } from '../runFiles/summary.js';
import { parseRunSummary } from '../runFiles/summaryFile.js';
import { parseRunManifest, type StoredRunManifest } from '../runFiles/manifest.js';
import { summarizeRun } from '../experiment/summary.js';
import { summaryOptionsOf } from '../results/loadRun.js';
import { costChartSvg } from '../report/costChart.js';
import { depthChartSvg } from '../report/depthChart.js';
import type {
  AnswerDetail,
  AnswerPage,
  AnswerQuery,
  AnswerRow,
  CellView,
  ImageView,
  IndexState,
  ItemInfo,
  OtherAnswer,
  PassageView,
  RunDetail,
  RunListEntry,
  RunStatus,
} from './api.js';
import { haystackOf, splitGroup, type BundleRow, type ScoreRow } from './queries.js';

/** Characters of question and answer kept in a table row (the answer page reads the record whole). */
const SNIPPET = 160;
/** items.jsonl is indexed in steps of about this many bytes (one transaction each): memory stays bounded whatever the file's size, and requests are answered between steps. */
const STEP_BYTES = 1024 * 1024;
/** An append up to this size is indexed within the request that sees it (a run in progress); more is left to the background. */
const INLINE_BYTES = 8 * 1024 * 1024;
/** Bytes before the indexed offset whose hash tells a file rewritten in place from one appended to. */
const TAIL = 4096;
/** A large run in progress (more answers than this) recomputes its summary (bootstrap CIs) at most every SUMMARY_EVERY_MS. */
const SUMMARY_THROTTLE_ABOVE = 5000;
const SUMMARY_EVERY_MS = 1500;

/** A file of the run directory, or null when it is absent or a link that leads outside the directory. */
export function insideFile(dir: string, name: string): string | null {
  const path = join(dir, name);
  try {
    const real = realpathSync(path);
    const root = realpathSync(dir);
    if (!real.startsWith(root + sep)) return null;
    return statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}

function readJson(dir: string, name: string): Record<string, unknown> | null {
  const file = insideFile(dir, name);
  if (!file) return null;
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Whether the process that wrote a run's last session is still running: alive, and — where
 * /proc says what it runs — a hisrag command (not another process that got its number after a reboot).
 */
function runnerAlive(pid: unknown): boolean {
  if (typeof pid !== 'number' || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return /hisrag|tsx/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return true; // no /proc (macOS, Windows): alive is all we know
  }
}

/**
 * What the summary needs of a record, without its texts (prompt, passages, trace, response): the
 * index keeps these in memory for the run's summary, so memory grows with the number of answers,
 * never with what they say.
 */
function slim(record: RunItemRecord): RunItemRecord {
  const out: RunItemRecord = {
    ...record,
    question: '',
    // One image reference of the prompt is kept: the summary tells image conditions by it (`byModality`).
    prompt: keptImage(record),
    retrieved: record.retrieved.filter((c) => c.rerankFallback !== undefined).map((c) => ({ ...c, title: '', text: '' })),
    contextIds: [],
    response: record.response ? { text: record.response.text ? ' ' : '', raw: '' } : null,
    score: { ...record.score, judgeRaw: undefined, extracted: undefined },
    trace: [],
  };
  // Claims and labels: the cells' diagnostics come from summary.json, not from here.
  delete (out as { diagnostics?: unknown }).diagnostics;
  return out;
}

function keptImage(record: RunItemRecord): RunItemRecord['prompt'] {
  const message = record.prompt.find((m) => m.images?.length);
  return message ? [{ role: message.role, content: '', images: [message.images![0]!] }] : [];
}

/** A record as the answer page shows it: `diagnostics` as the file has it, whatever the record schema knows. */
type ViewedRecord = Omit<RunItemRecord, 'diagnostics'> & { diagnostics?: unknown };

export interface StoredItem {
  referenceAnswer?: string;
  rubrics?: string;
  answer?: BenchmarkItem['answer'];
  goldChunkIds?: string[];
  evidencePages?: number[];
  docId?: string;
}

/** What this process has indexed since it started (a second start of unchanged runs: all zero). */
export interface IndexCounters {
  /** Lines of items.jsonl read into an index. */
  lines: number;
  bytes: number;
  /** Indexes started over because their items.jsonl was truncated or replaced (or the cache was unusable). */
  rebuilds: number;
  /** Indexes extended from where an earlier start (or request) stopped. */
  extended: number;
}

export const newCounters = (): IndexCounters => ({ lines: 0, bytes: 0, rebuilds: 0, extended: 0 });

/** The cache file's layout; another value starts the cache over. */
const CACHE_SCHEMA = '2';

interface Meta {
  /** Bytes of items.jsonl indexed (always up to a newline). */
  offset: number;
  dev: number;
  ino: number;
  /** sha1 of the TAIL bytes before `offset`: a file rewritten in place (truncated, then grown past it) no longer matches. */
  tail: string;
  badLines: number;
  itemsLoaded: boolean;
  /**
   * Answers, distinct questions and benchmark names in the index, kept with each step: the run
   * list counts fifty runs without scanning their tables ('' in a cache from before: counted once).
   */
  counts: string;
}

/** A run's summary.json, read when it changed (mtime, size): null when absent, or invalid (`problem` says why). */
interface StoredSummary {
  stamp: string;
  value: RunSummary | null;
  problem: string | null;
  mtimeMs: number;
}

/**
 * One run directory, indexed. What each run already summarises is read at once — config,
 * manifest, summary.json — so the run list and a finished run's conditions need no answer. The
 * answers go into an SQLite file in the viewer's cache folder (outside the run directory, which is
 * only ever read): one row per answer with the fields the tables filter and sort on, the searchable
 * text, what the summary needs (`slim`) and where the record lies in items.jsonl. The index is
 * filled in steps (`indexStep`, a few MB each, by the store's background loop) and kept between
 * starts, keyed by the file's identity (device, inode) and the bytes indexed: an append extends it,
 * a truncated or replaced file starts it over. No per-answer object stays in the process.
 */
export class RunIndex {
  private db: Database.Database;
  private meta: Meta;
  private config: ExperimentConfig | null = null;
  private manifest: StoredRunManifest = { version: 0 };
  private manifestText = '';
  /** Why manifest.json could not be read (the run is shown without it, with this message). */
  private manifestProblem: string | null = null;
  private changes = 0;
  /** The file as last seen: a change of size, mtime or inode is checked against the index. */
  private seen = { size: -1, mtimeMs: -1, ino: -1 };
  private answerCount: { changes: number; n: number; items: number; benchmarks: string[] } | null = null;
  private stored: StoredSummary | null = null;
  private summary: { changes: number; at: number; value: RunSummary } | null = null;
  private statements: { upsert: Database.Statement; reference: Database.Statement; setMeta: Database.Statement } | null = null;

  constructor(
    readonly id: string,
    readonly dir: string,
    private readonly cacheFile: string,
    private readonly counters: IndexCounters = newCounters(),
  ) {
    this.readConfig();
    this.readManifest();
    this.db = this.openCache();
    this.meta = this.readMeta();
    this.checkFile();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** Opens the cache file, starting it over when it is of another layout or another run directory. */
  private openCache(): Database.Database {
    let db = new Database(this.cacheFile);
    const schema = (() => {
      try {
        return (db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string } | undefined)?.value;
      } catch {
        return undefined;
      }
    })();
    const dirOf = (() => {
      try {
        return (db.prepare("SELECT value FROM meta WHERE key = 'dir'").get() as { value: string } | undefined)?.value;
      } catch {
        return undefined;
      }
    })();
    if (schema !== CACHE_SCHEMA || dirOf !== this.dir) {
      const fresh = schema === undefined && dirOf === undefined;
      db.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(this.cacheFile + suffix, { force: true });
      if (!fresh) this.counters.rebuilds++;
      db = new Database(this.cacheFile);
    }
    // 8 KB pages (set before the first table; a no-op on an existing file): a search-index entry
    // holds an answer's whole searchable text (~1 KB of UTF-8), which overflows 4 KB pages' index cells.
    db.pragma('page_size = 8192');
    // WAL: one viewer indexing while another (or this one) reads; a step is one transaction, so a
    // viewer killed mid-step leaves the index as of its last step, and the next start goes on from there.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 10000');
    // The page cache per run stays small (the OS caches the file): fifty runs open must not add up.
    db.pragma('cache_size = -512');
    db.exec(`
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS answers (
        id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, model TEXT NOT NULL, condition TEXT NOT NULL,
        benchmark TEXT NOT NULL, itemId TEXT NOT NULL, itemKey TEXT NOT NULL, category TEXT NOT NULL, groups TEXT NOT NULL,
        question TEXT NOT NULL, answer TEXT NOT NULL, score REAL, status TEXT NOT NULL, empty INTEGER NOT NULL,
        tokens REAL, price REAL, rcalls REAL, gcalls REAL, ms REAL, offset INTEGER NOT NULL, length INTEGER NOT NULL,
        haystack TEXT NOT NULL, slim TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS answers_cell ON answers (model, condition, itemKey);
      CREATE INDEX IF NOT EXISTS answers_item ON answers (itemKey);
      CREATE TABLE IF NOT EXISTS items (itemKey TEXT PRIMARY KEY, info TEXT NOT NULL);
    `);
    const set = db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)');
    set.run('schema', CACHE_SCHEMA);
    set.run('dir', this.dir);
    return db;
  }

  private readMeta(): Meta {
    const rows = this.db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[];
    const m = new Map(rows.map((r) => [r.key, r.value]));
    const num = (key: string) => Number(m.get(key) ?? 0) || 0;
    return { offset: num('offset'), dev: num('dev'), ino: num('ino'), tail: m.get('tail') ?? '', badLines: num('badLines'), itemsLoaded: m.get('itemsLoaded') === '1', counts: m.get('counts') ?? '' };
  }

  private writeMeta(patch: Partial<Meta>): void {
    Object.assign(this.meta, patch);
    this.statements ??= this.prepareStatements();
    for (const [key, value] of Object.entries(patch)) this.statements.setMeta.run(key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  }

  private prepareStatements() {
    return {
      upsert: this.db.prepare(`
        INSERT INTO answers (key, model, condition, benchmark, itemId, itemKey, category, groups, question, answer, score, status, empty, tokens, price, rcalls, gcalls, ms, offset, length, haystack, slim)
        VALUES (@key, @model, @condition, @benchmark, @itemId, @itemKey, @category, @groups, @question, @answer, @score, @status, @empty, @tokens, @price, @rcalls, @gcalls, @ms, @offset, @length, @haystack, @slim)
        ON CONFLICT(key) DO UPDATE SET score = excluded.score, status = excluded.status, empty = excluded.empty, answer = excluded.answer,
          tokens = excluded.tokens, price = excluded.price, rcalls = excluded.rcalls, gcalls = excluded.gcalls, ms = excluded.ms,
          offset = excluded.offset, length = excluded.length, haystack = excluded.haystack, groups = excluded.groups, slim = excluded.slim`),
      reference: this.db.prepare('SELECT info FROM items WHERE itemKey = ?'),
      setMeta: this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
    };
  }

  private readConfig(): void {
    const raw = readJson(this.dir, RUN_FILES.config);
    if (!raw) throw new Error(`${this.dir}: no readable ${RUN_FILES.config}`);
    this.config = validateExperimentConfig(raw, join(this.dir, RUN_FILES.config));
  }

  private readManifest(): void {
    const file = insideFile(this.dir, RUN_FILES.manifest);
    let text = '';
    try {
      text = file ? readFileSync(file, 'utf8') : '';
    } catch {
      text = '';
    }
    if (text === this.manifestText) return;
    this.manifestText = text;
    this.manifestProblem = null;
    try {
      this.manifest = file && text ? parseRunManifest(file, text) : { version: 0 };
    } catch (error) {
      this.manifest = { version: 0 };
      this.manifestProblem = (error as Error).message;
    }
    this.changes++;
  }

  /** The index, started over: its items.jsonl was truncated or replaced. */
  private rebuild(): void {
    this.db.transaction(() => {
      this.db.exec('DELETE FROM answers');
      this.writeMeta({ offset: 0, tail: '', badLines: 0, dev: 0, ino: 0, counts: '' });
    })();
    this.tornTail = -1;
    this.counters.rebuilds++;
    this.changes++;
  }

  private tailHash(fd: number, offset: number): string {
    const start = Math.max(0, offset - TAIL);
    const buffer = Buffer.alloc(offset - start);
    const read = readSync(fd, buffer, 0, buffer.length, start);
    return createHash('sha1').update(buffer.subarray(0, read)).digest('hex');
  }

  /**
   * Stats items.jsonl; when it changed since last seen, checks that the indexed bytes are still the
   * file's first bytes (same device and inode, not shorter, same bytes before the offset), else
   * starts the index over. Returns the file's size (0 when there is none).
   */
  private checkFile(): number {
    const file = insideFile(this.dir, RUN_FILES.items);
    if (!file) {
      if (this.meta.offset > 0) this.rebuild();
      this.seen = { size: 0, mtimeMs: -1, ino: -1 };
      return 0;
    }
    const fd = openSync(file, 'r');
    try {
      const st = fstatSync(fd);
      if (st.size === this.seen.size && st.mtimeMs === this.seen.mtimeMs && st.ino === this.seen.ino) return st.size;
      if (this.meta.offset > 0) {
        const same = st.dev === this.meta.dev && st.ino === this.meta.ino && st.size >= this.meta.offset && this.tailHash(fd, this.meta.offset) === this.meta.tail;
        if (!same) this.rebuild();
      }
      this.seen = { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
      return st.size;
    } finally {
      closeSync(fd);
    }
  }

  /** Bytes of items.jsonl not indexed yet (a last line without its newline counts until it is read). */
  get pending(): number {
    return Math.max(0, this.seen.size - this.meta.offset);
  }

  /** Every complete line indexed: what is left, if anything, is a line still being written. */
  get ready(): boolean {
    return this.pending === 0 || this.tornTail === this.seen.size;
  }

  /** The file size at which the last step found only an unfinished line after the offset. */
  private tornTail = -1;

  get indexState(): IndexState {
    return { state: this.ready ? 'ready' : 'indexing', bytes: this.meta.offset, totalBytes: Math.max(this.seen.size, 0), answers: this.counts().n };
  }

  /** Whether the benchmark's items (references, for search) still have to be loaded before the first answers. */
  get needsItems(): boolean {
    return !this.meta.itemsLoaded;
  }

  /**
   * Loads the benchmark's items (references, rubrics, gold evidence: a benchmark file that moved
   * leaves them out) into the index, once per cache, before the first answers, so that references
   * are searchable.
   */
  async loadItems(): Promise<void> {
    if (this.meta.itemsLoaded || !this.config) return;
    const specs = this.config.benchmarks ?? (this.config.benchmark ? [this.config.benchmark] : []);
    const insert = this.db.prepare('INSERT OR REPLACE INTO items (itemKey, info) VALUES (?, ?)');
    for (const spec of specs) {
      try {
        const benchmark = await benchmarks.create(spec as { name: string } & Record<string, unknown>, undefined);
        const items = await benchmark.load();
        if (!this.db.open) return;
        this.db.transaction(() => {
          for (const item of items) {
            const stored: StoredItem = {
              ...(item.referenceAnswer ? { referenceAnswer: item.referenceAnswer } : {}),
              ...(item.rubrics ? { rubrics: item.rubrics } : {}),
              ...(item.answer !== undefined ? { answer: item.answer } : {}),
              ...(item.goldChunkIds ? { goldChunkIds: item.goldChunkIds } : {}),
              ...(item.evidencePages ? { evidencePages: item.evidencePages } : {}),
              ...(item.docId ? { docId: item.docId } : {}),
            };
            insert.run(`${item.benchmark}:${item.id}`, JSON.stringify(stored));
          }
        })();
      } catch {
        // The run directory is what the viewer shows; a benchmark file elsewhere is a bonus.
      }
    }
    if (this.db.open) this.writeMeta({ itemsLoaded: true });
  }

  /**
   * Re-reads the manifest and looks at items.jsonl; appends of at most `inlineBytes` are indexed
   * at once (a run in progress shows its new answers on the next request), larger ones are left to
   * the background. Returns whether something is left to index.
   */
  refresh(inlineBytes = INLINE_BYTES): boolean {
    this.readManifest();
    this.checkFile();
    if (this.ready) return false;
    if (this.meta.itemsLoaded && this.pending <= inlineBytes) {
      while (!this.ready && this.indexStep(STEP_BYTES)) {
        // a few MB at most
      }
    }
    return !this.ready;
  }

  /**
   * Indexes the next complete lines of items.jsonl, about `maxBytes` of them, in one transaction
   * with the new offset; returns whether more is left.
   */
  indexStep(maxBytes = STEP_BYTES): boolean {
    const size = this.checkFile();
    if (this.ready) return false;
    const file = insideFile(this.dir, RUN_FILES.items);
    if (!file) return false;
    const fd = openSync(file, 'r');
    try {
      const st = fstatSync(fd);
      const start = this.meta.offset;
      let buffer = Buffer.allocUnsafe(Math.min(maxBytes, Math.max(1, st.size - start)));
      let filled = 0;
      let lastNewline = -1;
      // Read a piece; a line longer than it grows the buffer until the line's newline is in.
      for (;;) {
        const read = readSync(fd, buffer, filled, buffer.length - filled, start + filled);
        if (read <= 0) break;
        filled += read;
        lastNewline = buffer.lastIndexOf(0x0a, filled - 1);
        if (lastNewline !== -1 || start + filled >= st.size) break;
        const bigger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(bigger, 0, 0, filled);
        buffer = bigger;
      }
      if (lastNewline === -1) {
        // Only a line being written is left: ready until the file grows.
        this.tornTail = size;
        return false;
      }
      if (start === 0 || this.meta.dev !== st.dev || this.meta.ino !== st.ino) this.writeMeta({ dev: st.dev, ino: st.ino });
      const end = start + lastNewline + 1;
      let lines = 0;
      let bad = 0;
      this.statements ??= this.prepareStatements();
      const { upsert, reference } = this.statements;
      const step = this.db.transaction(() => {
        // Another viewer on the same cache may have indexed these bytes meanwhile: take its state.
        const offset = Number((this.db.prepare("SELECT value FROM meta WHERE key = 'offset'").get() as { value: string } | undefined)?.value ?? 0);
        if (offset !== start) return false;
        // Each line decoded on its own, between the piece's newline bytes (a newline byte never occurs
        // inside a UTF-8 sequence): one string of the whole piece would be a large object, old
        // garbage until the next full GC.
        let from = 0;
        const benchmarkNames = new Set(this.storedCounts()?.benchmarks ?? []);
        while (from <= lastNewline) {
          const nl = buffer.indexOf(0x0a, from);
          if (nl - from > 0) {
            const text = buffer.toString('utf8', from, nl);
            if (text.trim()) {
              lines++;
              const benchmark = this.insertLine(upsert, reference, text, start + from, nl - from);
              if (benchmark === null) bad++;
              else benchmarkNames.add(benchmark);
            }
          }
          from = nl + 1;
        }
        this.writeMeta({ offset: end, tail: this.tailHash(fd, end), badLines: this.meta.badLines + bad, counts: JSON.stringify(this.countNow([...benchmarkNames])) });
        return true;
      });
      if (!step.immediate()) {
        this.meta = this.readMeta();
        this.changes++;
        return !this.ready;
      }
      if (start > 0 && !this.extendedOnce) this.counters.extended++;
      this.extendedOnce = true;
      this.counters.lines += lines;
      this.counters.bytes += end - start;
      this.changes++;
      return !this.ready;
    } finally {
      closeSync(fd);
    }
  }

  private extendedOnce = false;

  /** One line of items.jsonl into the index: its benchmark, or null when it is not a valid record (left out, counted). */
  private insertLine(upsert: Database.Statement, reference: Database.Statement, text: string, offset: number, length: number): string | null {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return null;
    }
    const parsed = RunItemRecordSchema.safeParse(value);
    if (!parsed.success) return null;
    const r = parsed.data;
    const itemKey = `${r.benchmark}:${r.itemId}`;
    const info = reference.get(itemKey) as { info: string } | undefined;
    const answer = r.response?.text ?? '';
    upsert.run({
      key: r.key,
      model: r.model,
      condition: r.condition,
      benchmark: r.benchmark,
      itemId: r.itemId,
      itemKey,
      category: r.category,
      groups: JSON.stringify(r.groups),
      question: r.question.slice(0, SNIPPET),
      answer: answer.slice(0, SNIPPET),
      score: r.score.status === 'scored' ? r.score.score : null,
      status: r.score.status,
      empty: r.score.rule === 'empty-answer' ? 1 : 0,
      tokens: r.cost ? r.cost.promptTokens + r.cost.completionTokens : null,
      price: r.cost?.price ?? null,
      rcalls: r.cost?.retrievalCalls ?? null,
      gcalls: r.cost?.generationCalls ?? null,
      ms: r.cost?.durationMs ?? r.durationMs,
      offset,
      length,
      haystack: haystackOf(r.question, answer, info ? ((JSON.parse(info.info) as StoredItem).referenceAnswer ?? null) : null),
      slim: JSON.stringify(slim(r)),
    });
    return r.benchmark;
  }

  /** Lines that were not valid records (left out; the run's own tools report them). */
  get badLines(): number {
    return this.meta.badLines;
  }

  private readRecordAt(offset: number, length: number): ViewedRecord | null {
    const file = insideFile(this.dir, RUN_FILES.items);
    if (!file) return null;
    const fd = openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, offset);
      const raw = JSON.parse(buffer.toString('utf8')) as Record<string, unknown>;
      const record: ViewedRecord = RunItemRecordSchema.parse(raw);
      // The record schema may not know `diagnostics` yet: keep it as the file has it.
      if (raw.diagnostics !== undefined && record.diagnostics === undefined) record.diagnostics = raw.diagnostics;
      return record;
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }

  get version(): number {
    return this.changes;
  }

  /** Counted in the step's transaction, over the indexes (the table's rows are not read). */
  private countNow(benchmarks: string[]): { n: number; items: number; benchmarks: string[] } {
    const n = (this.db.prepare('SELECT COUNT(*) AS n FROM answers').get() as { n: number }).n;
    const items = (this.db.prepare('SELECT COUNT(DISTINCT itemKey) AS n FROM answers').get() as { n: number }).n;
    return { n, items, benchmarks: [...benchmarks].sort() };
  }

  private storedCounts(): { n: number; items: number; benchmarks: string[] } | null {
    try {
      return this.meta.counts ? (JSON.parse(this.meta.counts) as { n: number; items: number; benchmarks: string[] }) : null;
    } catch {
      return null;
    }
  }

  private counts(): { n: number; items: number; benchmarks: string[] } {
    if (this.answerCount?.changes === this.changes) return this.answerCount;
    let counted = this.storedCounts();
    if (!counted) {
      // An empty index, or a cache without its counts: counted once (the benchmark names scan the table).
      const names = (this.db.prepare('SELECT DISTINCT benchmark FROM answers').all() as { benchmark: string }[]).map((r) => r.benchmark);
      counted = this.countNow(names);
      if (counted.n > 0) this.writeMeta({ counts: JSON.stringify(counted) });
    }
    this.answerCount = { changes: this.changes, ...counted };
    return this.answerCount;
  }

  /** What of the run's own files could not be read (damaged or hand-edited), each naming the file and field: the run is shown without them. */
  private problems(): string[] {
    return [this.manifestProblem, this.readStored().problem].filter((p): p is string => p !== null);
  }

  private status(): RunStatus {
    const m = this.manifest;
    if (m.complete === true) return 'done';
    if (typeof m.stoppedBecause === 'string') return 'failed';
    const last = m.sessions?.[m.sessions.length - 1];
    if (last && last.pid !== process.pid && runnerAlive(last.pid)) return 'in progress';
    if (last && last.pid === process.pid) return 'in progress';
    return 'interrupted';
  }

  /** summary.json, re-read when its mtime or size changed. */
  private readStored(): StoredSummary {
    const file = insideFile(this.dir, RUN_FILES.summary);
    let st: { mtimeMs: number; size: number } | null = null;
    try {
      st = file ? statSync(file) : null;
    } catch {
      st = null;
    }
    const stamp = st ? `${st.mtimeMs} ${st.size}` : '';
    if (this.stored?.stamp === stamp) return this.stored;
    let value: RunSummary | null = null;
    let problem: string | null = null;
    if (file) {
      try {
        value = parseRunSummary(file, readFileSync(file, 'utf8'));
      } catch (error) {
        // Shown on the run's page; the summary is computed from the answers meanwhile.
        problem = (error as Error).message;
      }
    }
    this.stored = { stamp, value, problem, mtimeMs: st?.mtimeMs ?? 0 };
    this.changes++;
    return this.stored;
  }

  /**
   * summary.json as the run wrote it, when it is the finished run's own (written after its last
   * answer; once the answers are indexed, covering exactly them): the run's conditions without
   * reading an answer.
   */
  private storedSummary(): RunSummary | null {
    if (this.manifest.complete !== true) return null;
    const stored = this.readStored();
    if (!stored.value) return null;
    const itemsFile = insideFile(this.dir, RUN_FILES.items);
    try {
      if (itemsFile && stored.mtimeMs < statSync(itemsFile).mtimeMs) return null;
    } catch {
      return null;
    }
    if (this.ready && stored.value.totals.items !== this.counts().n) return null;
    return stored.value;
  }

  /**
   * The run's summary: summary.json when it is the run's own, else the project's `summarizeRun`
   * over the indexed answers once they are all in (null before: still indexing). A large run in
   * progress recomputes it at most every SUMMARY_EVERY_MS.
   */
  private currentSummary(): RunSummary | null {
    const now = Date.now();
    const stored = this.storedSummary();
    if (stored) {
      if (this.summary?.value !== stored) this.summary = { changes: this.changes, at: now, value: stored };
      return stored;
    }
    if (!this.ready) return null;
    const live = this.counts().n > SUMMARY_THROTTLE_ABOVE && this.status() === 'in progress';
    if (this.summary && (this.summary.changes === this.changes || (live && now - this.summary.at < SUMMARY_EVERY_MS))) return this.summary.value;
    // The answers' slim records, for this computation only: nothing per answer is kept afterwards.
    const records = (this.db.prepare('SELECT slim FROM answers').all() as { slim: string }[]).map((r) => JSON.parse(r.slim) as RunItemRecord);
    const value = summarizeRun(records, summaryOptionsOf(this.config!, this.manifest, records));
    this.summary = { changes: this.changes, at: now, value };
    return value;
  }

  /** Whether the summary has to be computed from the answers (no summary.json of the run's own). */
  get needsComputedSummary(): boolean {
    return this.storedSummary() === null;
  }

  /** Hands back the SQLite page cache of a run just indexed (its steps filled it). */
  releaseMemory(): void {
    if (!this.db.open) return;
    this.ensureSearchIndex();
    this.db.pragma('shrink_memory');
    // The run's last steps are still in the WAL: copied into the file now, later reads (searches)
    // find every page there. PASSIVE: never waits for another viewer reading the same cache.
    this.db.pragma('wal_checkpoint(PASSIVE)');
  }

  private searchIndexed = false;

  /**
   * The search index: each condition's answers in item order with their searchable text, built
   * once the run's answers are in (kept up to date by SQLite for what a live run appends later).
   * Why: a search then reads one condition's texts, packed together (~10 MB for 10,000 answers),
   * and the table only for the rows it shows; without it, a search reads every page of the answers
   * table (~45 MB a run of 20,000), which the OS does not keep cached for long — measured 0.7 s on
   * a cold cache against 30–50 ms with it. Built at the end (a sort, written in order) rather than
   * row by row while indexing, which leaves its pages scattered and nearly as slow to read cold.
   */
  ensureSearchIndex(): void {
    if (this.searchIndexed || !this.db.open) return;
    this.db.exec('CREATE INDEX IF NOT EXISTS answers_search ON answers (model, condition, itemKey, haystack)');
    this.searchIndexed = true;
  }

  /** Computes the summary now (the store's background loop calls it once a run is indexed). */
  warmSummary(): void {
    this.currentSummary();
  }

  private entry: { key: string; value: RunListEntry } | null = null;

  listEntry(): RunListEntry {
    const summary = this.currentSummary();
    const state = this.indexState;
    const cacheKey = `${this.changes} ${this.status()} ${state.state} ${summary === null} ${this.problems().join('\n')}`;
    if (this.entry?.key === cacheKey) return this.entry.value;
    this.entry = { key: cacheKey, value: this.computeEntry(summary, state) };
    return this.entry.value;
  }

  private computeEntry(summary: RunSummary | null, index: IndexState): RunListEntry {
    const config = this.config!;
    let best: RunListEntry['best'] = null;
    for (const cell of summary?.cells ?? []) {
      if (cell.score.mean !== null && (best === null || cell.score.mean > best.mean)) {
        best = { model: cell.model, condition: cell.condition, mean: cell.score.mean, ciLow: cell.score.ciLow, ciHigh: cell.score.ciHigh };
      }
    }
    const cells = summary?.cells ?? [];
    const costed = cells.filter((c) => c.cost && c.cost.n > 0);
    const weight = costed.reduce((n, c) => n + c.cost!.n, 0);
    const tokens = weight ? costed.reduce((s, c) => s + (c.cost!.promptTokens + c.cost!.completionTokens) * c.cost!.n, 0) / weight : null;
    const price = weight && costed.every((c) => c.cost!.price !== null) ? costed.reduce((s, c) => s + c.cost!.price! * c.cost!.n, 0) / weight : null;
    const planned = this.manifest.answers;
    const options = summaryOptionsOf(config, this.manifest, []);
    const configBenchmarks = (config.benchmarks ?? (config.benchmark ? [config.benchmark] : [])).map((b) => String((b as { name?: unknown }).name ?? '')).filter(Boolean);
    // Before the answers are indexed, what the run says of itself: its summary, else its manifest.
    const counted = index.state === 'ready' ? this.counts() : null;
    const answers = counted?.n ?? summary?.totals.items ?? planned?.done ?? index.answers;
    const items = counted?.items ?? Math.max(0, ...cells.map((c) => c.items));
    return {
      id: this.id,
      experiment: this.manifest.experiment ?? config.name,
      startedAt: this.manifest.startedAt ?? null,
      finishedAt: this.manifest.finishedAt ?? null,
      status: this.status(),
      stoppedBecause: this.manifest.stoppedBecause ?? null,
      problems: this.problems(),
      models: summary?.models ?? options.models,
      conditions: summary?.conditions ?? options.conditions,
      benchmarks: counted?.benchmarks.length ? counted.benchmarks : configBenchmarks,
      answers,
      total: planned?.total ?? null,
      items,
      baseline: summary?.baseline ?? config.scoring.baseline,
      best,
      cost: { tokens, price, estimated: costed.some((c) => c.cost!.estimatedTokens) },
      failures: summary ? summary.totals.generationFailed + summary.totals.judgeFailed : 0,
      empty: summary?.totals.empty ?? 0,
      version: this.changes,
      index,
    };
  }

  private detailCache: { key: string; value: RunDetail } | null = null;

  detail(): RunDetail {
    const summary = this.currentSummary();
    const cacheKey = `${this.changes} ${this.ready} ${this.status()}`;
    if (this.detailCache?.key === cacheKey && this.detailCache.value.cells.length === (summary?.cells.length ?? 0)) return this.detailCache.value;
    // Cell diagnostics: from the recomputed summary when it carries them, else from summary.json.
    const storedCells = this.readStored().value?.cells ?? [];
    const storedDiagnostics = new Map(storedCells.filter((c) => c.diagnostics !== undefined).map((c) => [`${c.model}\u0000${c.condition}`, c.diagnostics]));
    const cells: CellView[] = (summary?.cells ?? []).map((cell) => {
      const diagnostics = (cell as { diagnostics?: unknown }).diagnostics ?? storedDiagnostics.get(`${cell.model}\u0000${cell.condition}`);
      return {
        ...cell,
        paired: summary!.paired.find((p) => p.model === cell.model && p.condition === cell.condition) ?? null,
        ...(diagnostics !== undefined ? { diagnostics } : {}),
      };
    });
    const groupValues: Record<string, string[]> = {};
    const addGroup = (key: string, value: string) => {
      const list = (groupValues[key] ??= []);
      if (!list.includes(value)) list.push(value);
    };
    if (this.ready) {
      for (const row of this.db.prepare('SELECT DISTINCT groups FROM answers').all() as { groups: string }[]) {
        for (const [key, value] of Object.entries(JSON.parse(row.groups) as Record<string, string>)) addGroup(key, value);
      }
    } else {
      // Still indexing: the groups the summary's breakdowns name.
      for (const cell of summary?.cells ?? []) for (const [key, values] of Object.entries(cell.byGroup)) for (const value of Object.keys(values)) addGroup(key, value);
    }
    for (const list of Object.values(groupValues)) list.sort();
    const config = this.config!;
    const detail: RunDetail = {
      run: this.listEntry(),
      baseline: summary?.baseline ?? config.scoring.baseline,
      bootstrap: { ...(summary?.bootstrap ?? { resamples: config.scoring.bootstrapResamples, seed: config.seed, confidence: 0.95 }), reducer: config.scoring.reducer ?? 'mean' },
      cells,
      groupKeys: Object.keys(groupValues).sort(),
      groupValues,
      charts: summary ? summary.models.map((model) => ({ model, depth: depthChartSvg(summary, model), cost: costChartSvg(summary, model) })) : [],
      byModality: summary?.byModality ?? [],
      report: insideFile(this.dir, RUN_FILES.report) !== null,
    };
    this.detailCache = { key: cacheKey, value: detail };
    return detail;
  }

  answers(query: AnswerQuery): AnswerPage {
    const where = ['a.model = @model', 'a.condition = @condition'];
    const params: Record<string, unknown> = { model: query.model, condition: query.condition };
    const [groupKey, groupValue] = splitGroup(query.group);
    if (groupKey !== null) {
      where.push(`json_extract(a.groups, @groupPath) = @groupValue`);
      params.groupPath = `$."${groupKey.replace(/["\\]/g, '')}"`;
      params.groupValue = groupValue;
    }
    if (query.scoreMin !== undefined) (where.push('a.score >= @scoreMin'), (params.scoreMin = query.scoreMin));
    if (query.scoreMax !== undefined) (where.push('a.score <= @scoreMax'), (params.scoreMax = query.scoreMax));
    if (query.status === 'scored') where.push(`a.status = 'scored'`);
    if (query.status === 'failed') where.push(`a.status != 'scored'`);
    if (query.status === 'empty') where.push('a.empty = 1');
    const needle = query.q?.trim().toLowerCase();
    // A search goes through the search index by name: SQLite's planner, left to itself, may take the
    // narrower cell index, which reads every row of the table for its text.
    let from = 'answers a';
    if (needle) {
      where.push('instr(a.haystack, @needle) > 0');
      params.needle = needle;
      this.ensureSearchIndex();
      from = 'answers a INDEXED BY answers_search';
    }
    let join = '';
    let otherColumn = '';
    if (query.differsFrom) {
      join = 'JOIN answers o ON o.itemKey = a.itemKey AND o.model = a.model AND o.condition = @other';
      where.push('(o.score IS NOT a.score OR o.status != a.status)');
      params.other = query.differsFrom;
      otherColumn = ', o.score AS otherScore';
    }
    const order = query.sort === 'score' ? 'a.score IS NULL, a.score ASC, a.itemKey' : query.sort === '-score' ? 'a.score IS NULL, a.score DESC, a.itemKey' : 'a.itemKey';
    const sqlWhere = where.join(' AND ');
    const offset = query.offset ?? 0;
    const limit = query.limit ?? 100;
    // The page's rows, then the count: a search's count reads only the search index, and the page
    // reads the table for its own rows alone (a count over the page's query would read every match's row).
    const rows = this.db
      .prepare(
        `SELECT a.key, a.itemKey, a.itemId, a.category, a.question, a.answer, a.score, a.status, a.empty, a.tokens${otherColumn} FROM ${from} ${join} WHERE ${sqlWhere} ORDER BY ${order} LIMIT @limit OFFSET @offset`,
      )
      .all({ ...params, limit, offset }) as (Omit<AnswerRow, 'empty'> & { empty: number })[];
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM ${from} ${join} WHERE ${sqlWhere}`).get(params) as { n: number }).n;
    return { total, offset, rows: rows.map((r) => ({ ...r, empty: r.empty === 1 })) };
  }

  /** What Compare needs of every answer of one condition. */
  scoreRows(model: string, condition: string): ScoreRow[] {
    return this.db
      .prepare('SELECT key, itemKey, itemId, category, question, status, score, tokens, price, rcalls AS retrievalCalls, gcalls AS generationCalls, ms AS durationMs FROM answers WHERE model = ? AND condition = ?')
      .all(model, condition) as ScoreRow[];
  }

  /** One condition's answers as a bundle stores them (what its table shows, searches and compares). */
  bundleRows(model: string, condition: string): BundleRow[] {
    const rows = this.db
      .prepare(
        'SELECT key, itemKey, itemId, category, question, answer, score, status, empty, tokens, groups, haystack, price, rcalls AS retrievalCalls, gcalls AS generationCalls, ms AS durationMs FROM answers WHERE model = ? AND condition = ? ORDER BY itemKey',
      )
      .all(model, condition) as (Omit<BundleRow, 'empty' | 'groups'> & { empty: number; groups: string })[];
    return rows.map((r) => ({ ...r, empty: r.empty === 1, groups: JSON.parse(r.groups) as Record<string, string> }));
  }

  /** Every answer's key, in the order they were first written. */
  keys(): string[] {
    return (this.db.prepare('SELECT key FROM answers ORDER BY id').all() as { key: string }[]).map((r) => r.key);
  }

  cell(model: string, condition: string): CellView | null {
    return this.detail().cells.find((c) => c.model === model && c.condition === condition) ?? null;
  }

  get bootstrap(): { resamples: number; seed: number; reducer: Reducer } {
    return { resamples: this.config?.scoring.bootstrapResamples ?? 1000, seed: this.config?.seed ?? 0, reducer: this.config?.scoring.reducer ?? 'mean' };
  }

  item(itemKey: string): StoredItem | null {
    const row = this.db.prepare('SELECT info FROM items WHERE itemKey = ?').get(itemKey) as { info: string } | undefined;
    return row ? (JSON.parse(row.info) as StoredItem) : null;
  }

  answer(key: string): AnswerDetail | null {
    const row = this.db.prepare('SELECT offset, length, itemKey FROM answers WHERE key = ?').get(key) as { offset: number; length: number; itemKey: string } | undefined;
    if (!row) return null;
    const record = this.readRecordAt(row.offset, row.length);
    if (!record) return null;
    const stored = this.item(row.itemKey);
    const others = (
      this.db.prepare('SELECT key, model, condition, score, status, answer FROM answers WHERE itemKey = ? AND key != ? ORDER BY id').all(row.itemKey, key) as Omit<OtherAnswer, 'run'>[]
    ).map((o) => ({ ...o, run: this.id }));
    return { run: this.id, record, item: stored ? itemInfo(stored) : null, passages: passagesOf(record, stored), images: imagesOf(record, stored, this.imageDirs()), others };
  }

  /** The manifest's `imageDirs`: the absolute folders this run's prompts may show pages from, and the only ones served. */
  imageDirs(): string[] {
    return (this.manifest.imageDirs ?? []).filter((d) => isAbsolute(d));
  }
}

/** The page images of a record's prompt, in prompt order, with the folder each is served from and whether it is gold evidence. */
export function imagesOf(record: ViewedRecord, stored: StoredItem | null, imageDirs: string[]): ImageView[] {
  // The record's own evidence (runs that carry it); else the benchmark's, when its file could be read.
  const evidence = record.evidence ?? (stored?.evidencePages ? { docId: stored.docId, pages: stored.evidencePages } : null);
  return record.prompt.flatMap((message, index) =>
    (message.images ?? []).map((image) => {
      const dir = imageDirs.indexOf(image.imageDir);
      return {
        dir: dir === -1 ? null : dir,
        path: image.path,
        docId: image.docId,
        page: image.page,
        width: image.width,
        height: image.height,
        bytes: image.bytes,
        message: index,
        evidence: Boolean(evidence && (evidence.docId ?? image.docId) === image.docId && evidence.pages.includes(image.page)),
      };
    }),
  );
}

function itemInfo(stored: StoredItem): ItemInfo {
  const gold = stored.goldChunkIds?.length ? stored.goldChunkIds : stored.evidencePages?.length && stored.docId ? stored.evidencePages.map((p) => `page:${p}`) : [];
  return {
    reference: stored.referenceAnswer ?? null,
    rubrics: stored.rubrics ?? null,
    answer: stored.answer === undefined ? null : Array.isArray(stored.answer) ? stored.answer.join(', ') : String(stored.answer),
    gold,
  };
}

/** The record's passages in rank order: in the final prompt or not, gold or not, and which gold claims each entails (diagnostics). */
export function passagesOf(record: ViewedRecord, stored: StoredItem | null): PassageView[] {
  const inPrompt = new Set(record.contextIds);
  const item = stored ? ({ ...stored, meta: {} } as unknown as BenchmarkItem) : null;
  const supports = goldClaimSupport(record.diagnostics);
  return [...record.retrieved]
    .sort((a, b) => a.rank - b.rank)
    .map((chunk) => ({
      ...chunk,
      inPrompt: inPrompt.has(chunk.id),
      gold: item ? isGoldChunk(item, chunk) : false,
      supportsGoldClaims: supports.get(chunk.id) ?? [],
    }));
}

/** Passage id → the gold claims (1-based) its diagnostics label as entailed by it. */
function goldClaimSupport(diagnostics: unknown): Map<string, number[]> {
  const out = new Map<string, number[]>();
  if (!diagnostics || typeof diagnostics !== 'object') return out;
  const d = diagnostics as { contextIds?: unknown; labels?: { goldVsChunks?: unknown } };
  const ids = Array.isArray(d.contextIds) ? (d.contextIds as unknown[]) : [];
  const rows = Array.isArray(d.labels?.goldVsChunks) ? (d.labels!.goldVsChunks as unknown[]) : [];
  rows.forEach((row, claim) => {
    if (!Array.isArray(row)) return;
    row.forEach((label, column) => {
      const id = ids[column];
      if (label === 'entailment' && typeof id === 'string') out.set(id, [...(out.get(id) ?? []), claim + 1]);
    });
  });
  return out;
}
