import { existsSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { BenchmarkItem } from '../benchmarks/types.js';
import type { IndexCounters } from './api.js';

/** A run's index cache: the SQLite file in the viewer's cache folder (never in the run directory). */

/** One value of an index's `meta` table; undefined when the table or the key is missing. */
export function metaValue(db: Database.Database, key: string): string | undefined {
  try {
    return (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  } catch {
    return undefined;
  }
}

/** The cache file's layout; another value starts the cache over. */
const CACHE_SCHEMA = '2';

export interface Meta {
  /** Bytes of items.jsonl indexed (always up to a newline). */
  offset: number;
  dev: number;
  ino: number;
  /** sha1 of the TAIL bytes before `offset`: a file rewritten in place (truncated, then grown past it) no longer matches. */
  tail: string;
  badLines: number;
  itemsLoaded: boolean;
  /** `AnswerCounts` as JSON, kept with each step: the run list counts fifty runs without scanning their tables. */
  counts: string;
}

/** What the index keeps of a benchmark item: references (searched), rubrics and gold evidence. */
export type StoredItem = Partial<Pick<BenchmarkItem, 'referenceAnswer' | 'rubrics' | 'answer' | 'goldChunkIds' | 'evidencePages' | 'docId'>>;

type CacheStatements = Record<'upsert' | 'reference' | 'setMeta', Database.Statement>;

export class IndexCache {
  private handle: Database.Database | null = null;
  meta: Meta;
  private prepared: CacheStatements | null = null;
  private searchIndexed = false;
  /** Set by `close`: a cache closed before its first use is never created. */
  closed = false;

  constructor(
    private readonly cacheFile: string,
    private readonly dir: string,
    private readonly counters: IndexCounters,
  ) {
    // A run met for the first time gets its file with its first indexing step, after the run list is
    // served: creating ten runs' files (page size, WAL, tables) took ~0.1 s of a cold start.
    if (existsSync(cacheFile)) this.handle = this.open();
    this.meta = this.handle ? this.readMeta() : { offset: 0, dev: 0, ino: 0, tail: '', badLines: 0, itemsLoaded: false, counts: '' };
  }

  /** The cache file, created on first use. */
  get db(): Database.Database {
    if (this.closed) throw new Error(`${this.cacheFile}: index cache closed`);
    return (this.handle ??= this.open());
  }

  /** Whether the file is open or was (a cache never opened holds nothing). */
  get created(): boolean {
    return this.handle !== null;
  }

  close(): void {
    if (!this.closed) this.handle?.close();
    this.closed = true;
  }

  /** Opens the cache file, starting it over when it is of another layout or another run directory. */
  private open(): Database.Database {
    let db = new Database(this.cacheFile);
    const schema = metaValue(db, 'schema');
    const dirOf = metaValue(db, 'dir');
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

  readMeta(): Meta {
    const rows = this.db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[];
    const m = new Map(rows.map((r) => [r.key, r.value]));
    const num = (key: string) => Number(m.get(key) ?? 0) || 0;
    return { offset: num('offset'), dev: num('dev'), ino: num('ino'), tail: m.get('tail') ?? '', badLines: num('badLines'), itemsLoaded: m.get('itemsLoaded') === '1', counts: m.get('counts') ?? '' };
  }

  writeMeta(patch: Partial<Meta>): void {
    Object.assign(this.meta, patch);
    for (const [key, value] of Object.entries(patch)) this.statements().setMeta.run(key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  }

  /** The statements every step uses, prepared once. */
  statements(): CacheStatements {
    return (this.prepared ??= {
      upsert: this.db.prepare(`
        INSERT INTO answers (key, model, condition, benchmark, itemId, itemKey, category, groups, question, answer, score, status, empty, tokens, price, rcalls, gcalls, ms, offset, length, haystack, slim)
        VALUES (@key, @model, @condition, @benchmark, @itemId, @itemKey, @category, @groups, @question, @answer, @score, @status, @empty, @tokens, @price, @rcalls, @gcalls, @ms, @offset, @length, @haystack, @slim)
        ON CONFLICT(key) DO UPDATE SET score = excluded.score, status = excluded.status, empty = excluded.empty, answer = excluded.answer,
          tokens = excluded.tokens, price = excluded.price, rcalls = excluded.rcalls, gcalls = excluded.gcalls, ms = excluded.ms,
          offset = excluded.offset, length = excluded.length, haystack = excluded.haystack, groups = excluded.groups, slim = excluded.slim`),
      reference: this.db.prepare('SELECT info FROM items WHERE itemKey = ?'),
      setMeta: this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
    });
  }

  /** A benchmark item as the index keeps it (`AnswerLoader.loadItems`); null when its benchmark file could not be read. */
  storedItem(itemKey: string): StoredItem | null {
    const row = this.statements().reference.get(itemKey) as { info: string } | undefined;
    return row ? (JSON.parse(row.info) as StoredItem) : null;
  }

  /**
   * The search index (each condition's searchable texts in item order), built once the answers are
   * in. Why: a search then reads one condition's texts packed together, not every page of the
   * answers table — measured 0.7 s against 30–50 ms on a cold cache. Built at the end (a sort,
   * written in order): built row by row while indexing, its pages scatter and read nearly as slowly.
   */
  ensureSearchIndex(): void {
    if (this.searchIndexed || this.closed) return;
    this.db.exec('CREATE INDEX IF NOT EXISTS answers_search ON answers (model, condition, itemKey, haystack)');
    this.searchIndexed = true;
  }

  /** Hands back the SQLite page cache of a run just indexed (its steps filled it). */
  releaseMemory(): void {
    if (!this.handle || this.closed) return;
    this.ensureSearchIndex();
    this.db.pragma('shrink_memory');
    // The run's last steps are still in the WAL: copied into the file now, later reads (searches)
    // find every page there. PASSIVE: never waits for another viewer reading the same cache.
    this.db.pragma('wal_checkpoint(PASSIVE)');
  }
}
