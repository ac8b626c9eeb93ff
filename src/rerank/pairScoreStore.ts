import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { DataFileError } from '../errors.js';

/**
 * Cross-encoder logits on disk, keyed by the pair key of `PairScoreCache` (model fingerprint,
 * query and passage hashed together). SQLite in WAL mode, like the embedding cache: a resumed or
 * repeated run rescores no pair, and several processes may share the file.
 */
export class PairScoreStore {
  private readonly db: Database.Database;
  private readonly select: Database.Statement<[string], { logit: number }>;
  private readonly insert: Database.Statement<[string, number]>;

  constructor(readonly file: string) {
    const path = resolve(file);
    try {
      mkdirSync(dirname(path), { recursive: true });
      this.db = new Database(path);
      this.db.pragma('journal_mode = WAL');
      this.db.exec('CREATE TABLE IF NOT EXISTS pair_logits (pair TEXT PRIMARY KEY, logit REAL NOT NULL) WITHOUT ROWID;');
    } catch (error) {
      throw new DataFileError(`${file}: not a usable rerank cache: ${(error as Error).message}`);
    }
    this.select = this.db.prepare('SELECT logit FROM pair_logits WHERE pair = ?');
    this.insert = this.db.prepare('INSERT OR REPLACE INTO pair_logits (pair, logit) VALUES (?, ?)');
  }

  get(key: string): number | undefined {
    return this.select.get(key)?.logit;
  }

  putMany(entries: Array<[key: string, logit: number]>): void {
    this.db.transaction((rows: typeof entries) => {
      for (const [key, logit] of rows) this.insert.run(key, logit);
    })(entries);
  }

  close(): void {
    this.db.close();
  }
}
