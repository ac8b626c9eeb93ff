import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { DataFileError } from '../errors.js';

export const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Vectors on disk, keyed by (embedder key, sha256 of the text). SQLite in WAL mode: several
 * processes may share one file, and an interrupted run keeps every vector stored so far.
 */
export class EmbeddingCache {
  private readonly db: Database.Database;
  private readonly select: Database.Statement<[string, Buffer], { vector: Buffer }>;
  private readonly insert: Database.Statement<[string, Buffer, Buffer]>;

  constructor(readonly file: string) {
    const path = resolve(file);
    try {
      mkdirSync(dirname(path), { recursive: true });
      this.db = new Database(path);
      this.db.pragma('journal_mode = WAL');
      this.db.exec(`
        CREATE TABLE IF NOT EXISTS embedders (key TEXT PRIMARY KEY, identity TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS vectors (
          embedder TEXT NOT NULL, text_sha256 BLOB NOT NULL, vector BLOB NOT NULL,
          PRIMARY KEY (embedder, text_sha256)) WITHOUT ROWID;`);
    } catch (error) {
      throw new DataFileError(`${file}: not a usable embedding cache: ${(error as Error).message}`);
    }
    this.select = this.db.prepare('SELECT vector FROM vectors WHERE embedder = ? AND text_sha256 = ?');
    this.insert = this.db.prepare('INSERT OR REPLACE INTO vectors (embedder, text_sha256, vector) VALUES (?, ?, ?)');
  }

  /** Records what an embedder key stands for (for people inspecting the file). */
  describe(key: string, identity: unknown): void {
    this.db.prepare('INSERT OR IGNORE INTO embedders (key, identity) VALUES (?, ?)').run(key, JSON.stringify(identity));
  }

  /** Cached vectors by position in `texts`; missing ones are undefined. */
  getMany(key: string, texts: string[]): Array<number[] | undefined> {
    return texts.map((text) => {
      const row = this.select.get(key, sha256(text));
      if (!row) return undefined;
      const bytes = row.vector;
      return Array.from(new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)));
    });
  }

  putMany(key: string, entries: Array<{ text: string; vector: number[] }>): void {
    const store = this.db.transaction((rows: typeof entries) => {
      for (const { text, vector } of rows) this.insert.run(key, sha256(text), Buffer.from(Float32Array.from(vector).buffer));
    });
    store(entries);
  }

  close(): void {
    this.db.close();
  }
}
