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
  get(key: string): V | undefined;
  getMany(keys: string[]): Array<V | undefined>;
  /** In one transaction. */
  putMany(entries: Iterable<readonly [key: string, value: V]>): void;
  /** Keeps the value already stored under the key, if any. */
  putIfAbsent(key: string, value: V): void;
}

/**
 * What models compute, on disk: vectors by text, logits by pair, … — SQLite in WAL mode, so
 * several processes may share one file and an interrupted run keeps every value stored so far.
 * Each use names its tables (`key TEXT PRIMARY KEY, value …`).
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
      this.db.pragma('journal_mode = WAL');
    } catch (error) {
      throw this.unusable(error);
    }
  }

  private unusable(error: unknown): DataFileError {
    return new DataFileError(`${this.file}: not a usable ${this.purpose}: ${(error as Error).message}`);
  }

  table<V, Stored>(name: string, codec: ValueCodec<V, Stored>): KeyValueTable<V> {
    if (!/^[a-z_]+$/.test(name)) throw new Error(`key-value table name: ${name}`);
    let select: Database.Statement<[string], { value: Stored }>;
    let insert: Database.Statement<[string, Stored]>;
    let insertIfAbsent: Database.Statement<[string, Stored]>;
    try {
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${name} (key TEXT PRIMARY KEY, value ${codec.sqlType} NOT NULL) WITHOUT ROWID;`);
      select = this.db.prepare(`SELECT value FROM ${name} WHERE key = ?`);
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
      get,
      getMany: (keys) => keys.map(get),
      putMany: (entries) => putMany(entries),
      putIfAbsent: (key, value) => void insertIfAbsent.run(key, codec.encode(value)),
    };
  }

  close(): void {
    this.db.close();
  }
}
