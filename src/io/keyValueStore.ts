import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { DataFileError } from '../errors.js';

/** How a table's values are stored: the SQLite column type and the conversion both ways. */
export interface ValueCodec<V, Stored = unknown> {
  sqlType: 'BLOB' | 'REAL' | 'TEXT';
  encode(value: V): Stored;
  decode(stored: Stored): V;
}

/** Float32 vectors as raw little-endian bytes. */
export const FLOAT32_VECTOR: ValueCodec<number[], Buffer> = {
  sqlType: 'BLOB',
  encode: (vector) => Buffer.from(Float32Array.from(vector).buffer),
  decode: (bytes) => Array.from(new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))),
};
export const REAL_NUMBER: ValueCodec<number, number> = { sqlType: 'REAL', encode: (x) => x, decode: (x) => x };
export const JSON_VALUE: ValueCodec<unknown, string> = { sqlType: 'TEXT', encode: (v) => JSON.stringify(v), decode: (s) => JSON.parse(s) };

/** One key → value table of a store. */
export interface KeyValueTable<V> {
  readonly name: string;
  get(key: string): V | undefined;
  getMany(keys: string[]): Array<V | undefined>;
  /** Whether a value is stored under the key (the value is not decoded). */
  has(key: string): boolean;
  /** In one transaction. */
  putMany(entries: Iterable<readonly [key: string, value: V]>): void;
  /** Keeps the value already stored under the key, if any. */
  putIfAbsent(key: string, value: V): void;
  /** Number of keys stored. */
  size(): number;
}

/** A row of a table an earlier version wrote in a layout of its own: a `key` column and any others. */
export type LegacyRow = { key: string } & Record<string, unknown>;

// How long a connection waits for another process's write lock before failing with SQLITE_BUSY.
const BUSY_TIMEOUT_MS = 5000;
const TABLE_NAME = /^[a-z_]+$/;
// Rows of a legacy table moved per query (a cache of many answers is not read into memory at once).
const ADOPT_PAGE = 500;

/**
 * Values on disk by key — vectors by text, logits by pair, LLM responses by request, … — SQLite
 * in WAL mode with a busy timeout, so several processes may share one file and an interrupted run
 * keeps every value stored so far. Each use names its tables (`key TEXT PRIMARY KEY, value …`).
 */
export class KeyValueStore {
  private readonly db: Database.Database;

  /** `purpose` names the file in errors: `embedding cache`, `rerank cache`. */
  constructor(
    readonly file: string,
    private readonly purpose: string,
  ) {
    try {
      const path = resolve(file);
      mkdirSync(dirname(path), { recursive: true });
      this.db = new Database(path);
      this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      this.db.pragma('journal_mode = WAL');
    } catch (error) {
      throw this.unusable(error);
    }
  }

  private unusable(error: unknown): DataFileError {
    return new DataFileError(`${this.file}: not a usable ${this.purpose}: ${(error as Error).message}`);
  }

  table<V, Stored>(name: string, codec: ValueCodec<V, Stored>): KeyValueTable<V> {
    if (!TABLE_NAME.test(name)) throw new Error(`key-value table name: ${name}`);
    let select: Database.Statement<[string], { value: Stored }>;
    let exists: Database.Statement<[string], { found: number }>;
    let count: Database.Statement<[], { n: number }>;
    let insert: Database.Statement<[string, Stored]>;
    let insertIfAbsent: Database.Statement<[string, Stored]>;
    try {
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${name} (key TEXT PRIMARY KEY, value ${codec.sqlType} NOT NULL) WITHOUT ROWID;`);
      select = this.db.prepare(`SELECT value FROM ${name} WHERE key = ?`);
      exists = this.db.prepare(`SELECT 1 AS found FROM ${name} WHERE key = ?`);
      count = this.db.prepare(`SELECT COUNT(*) AS n FROM ${name}`);
      insert = this.db.prepare(`INSERT OR REPLACE INTO ${name} (key, value) VALUES (?, ?)`);
      insertIfAbsent = this.db.prepare(`INSERT OR IGNORE INTO ${name} (key, value) VALUES (?, ?)`);
    } catch (error) {
      throw this.unusable(error);
    }
    const get = (key: string) => {
      const row = select.get(key);
      return row ? codec.decode(row.value) : undefined;
    };
    const putMany = this.db.transaction((entries: Iterable<readonly [string, V]>) => {
      for (const [key, value] of entries) insert.run(key, codec.encode(value));
    });
    return {
      name,
      get,
      getMany: (keys) => keys.map(get),
      has: (key) => exists.get(key) !== undefined,
      putMany: (entries) => putMany(entries),
      putIfAbsent: (key, value) => void insertIfAbsent.run(key, codec.encode(value)),
      size: () => count.get()!.n,
    };
  }

  /**
   * Moves the rows of `legacy`, a table an earlier version wrote in its own layout, into `into`
   * (`convert` turns a row into a value; `undefined` leaves the row out; keys already in `into`
   * keep their value), then drops `legacy` — all in one write transaction, so of several processes
   * opening the file at once one moves the rows and the others find nothing left to move. Returns
   * the number of rows moved (0 when the file has no such table).
   */
  adoptLegacyTable<V>(legacy: string, into: KeyValueTable<V>, convert: (row: LegacyRow) => V | undefined): number {
    if (!TABLE_NAME.test(legacy) || legacy === into.name) throw new Error(`legacy key-value table name: ${legacy}`);
    const present = () =>
      this.db.prepare<[string], { found: number }>("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?").get(legacy) !== undefined;
    try {
      if (!present()) return 0; // the usual case, without taking the write lock
      const move = this.db.transaction(() => {
        if (!present()) return 0; // another process moved it first
        const page = this.db.prepare<[string], LegacyRow>(`SELECT * FROM ${legacy} WHERE key > ? ORDER BY key LIMIT ${ADOPT_PAGE}`);
        let moved = 0;
        for (let rows = page.all(''); rows.length > 0; rows = page.all(rows.at(-1)!.key)) {
          for (const row of rows) {
            const value = convert(row);
            if (value === undefined) continue;
            into.putIfAbsent(row.key, value);
            moved++;
          }
        }
        this.db.exec(`DROP TABLE ${legacy}`);
        return moved;
      });
      return move.immediate();
    } catch (error) {
      throw this.unusable(error);
    }
  }

  close(): void {
    this.db.close();
  }
}
