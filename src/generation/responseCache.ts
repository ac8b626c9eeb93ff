import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import type { GenerationResult } from './types.js';

/** JSON with object keys sorted, so equal requests hash equally whatever the key order. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Cache key of one request: sha256 of (model, full messages, generation parameters). Callers
 * pass only what changes the answer — never API keys or headers.
 */
export function responseCacheKey(request: { model: string; messages: unknown; params: Record<string, unknown> }): string {
  return createHash('sha256').update(stableStringify(request)).digest('hex');
}

const CachedResultSchema = z.object({
  text: z.string(),
  raw: z.string(),
  reasoning: z.string().optional(),
  usage: z
    .object({ promptTokens: z.number().optional(), completionTokens: z.number().optional(), totalTokens: z.number().optional() })
    .optional(),
  toolCalls: z.array(z.object({ id: z.string().optional(), name: z.string(), args: z.record(z.string(), z.unknown()) })).optional(),
});

/**
 * Successful responses on disk (SQLite, WAL), so re-running or extending a grid calls only what
 * is new. Only successes are stored; failures are never cached.
 */
export class ResponseCache {
  private readonly getStatement;
  private readonly putStatement;

  private constructor(
    readonly path: string,
    private readonly db: Database.Database,
  ) {
    this.getStatement = db.prepare<[string], { value: string }>('SELECT value FROM responses WHERE key = ?');
    this.putStatement = db.prepare<[string, string, string, string]>(
      'INSERT OR REPLACE INTO responses (key, model, value, created_at) VALUES (?, ?, ?, ?)',
    );
  }

  static open(path: string): ResponseCache {
    mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.exec(
      'CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, value TEXT NOT NULL, created_at TEXT NOT NULL)',
    );
    return new ResponseCache(path, db);
  }

  get(key: string): GenerationResult | undefined {
    const row = this.getStatement.get(key);
    if (!row) return undefined;
    const parsed = CachedResultSchema.safeParse(JSON.parse(row.value));
    // A row this version cannot read is treated as a miss and overwritten by the next success.
    return parsed.success ? { ...parsed.data, cached: true } : undefined;
  }

  put(key: string, model: string, result: GenerationResult): void {
    const { text, raw, reasoning, usage, toolCalls } = result;
    this.putStatement.run(key, model, JSON.stringify({ text, raw, reasoning, usage, toolCalls }), new Date().toISOString());
  }

  size(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM responses').get() as { n: number }).n;
  }

  close(): void {
    this.db.close();
  }
}

// One connection per file per process: generators, judges and extractors may share a cache file.
const open = new Map<string, ResponseCache>();

export function openResponseCache(path: string): ResponseCache {
  const key = resolve(path);
  let cache = open.get(key);
  if (!cache) {
    cache = ResponseCache.open(key);
    open.set(key, cache);
  }
  return cache;
}

/** Closes every cache this process opened (tests, shutdown). */
export function closeResponseCaches(): void {
  for (const cache of open.values()) cache.close();
  open.clear();
}
