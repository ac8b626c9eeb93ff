import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { KeyValueStore, type KeyValueTable, type LegacyRow, type ValueCodec } from '../io/keyValueStore.js';
import { readResponseCacheEntry, type ResponseCacheEntry } from '../runFiles/responseCacheEntry.js';
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

/** JSON text; a value that does not parse reads as `undefined` (a miss), never as an error. */
const LENIENT_JSON: ValueCodec<unknown, string> = {
  sqlType: 'TEXT',
  encode: (value) => JSON.stringify(value),
  decode: (text) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  },
};

const TABLE = 'llm_responses';
/** The table of the cache's own SQLite layer before it moved onto the key-value store: key, model, value (the result's JSON), created_at. */
const LEGACY_TABLE = 'responses';

function entry(model: string, result: GenerationResult): ResponseCacheEntry {
  const { text, raw, reasoning, usage, toolCalls, logprobs, finishReason } = result;
  return { model, createdAt: new Date().toISOString(), result: { text, raw, reasoning, usage, toolCalls, logprobs, finishReason } };
}

/** A row of the legacy table as an entry of the new one; a row that does not parse stays out (it was a miss before too). */
function fromLegacyRow(row: LegacyRow): unknown {
  const value = typeof row.value === 'string' ? LENIENT_JSON.decode(row.value) : undefined;
  if (value === undefined) return undefined;
  const text = (field: unknown) => (typeof field === 'string' ? field : undefined);
  return { model: text(row.model), createdAt: text(row.created_at), result: value };
}

/**
 * Successful responses on disk, in the project's key-value store (table `llm_responses`, SQLite in
 * WAL mode: several processes may share one file), so re-running or extending a grid calls only
 * what is new. Only successes are stored; failures are never cached. A file the cache wrote before
 * it moved onto the store (table `responses`) is converted when first opened.
 */
export class ResponseCache {
  private constructor(
    readonly path: string,
    private readonly store: KeyValueStore,
    private readonly entries: KeyValueTable<unknown>,
  ) {}

  static open(path: string): ResponseCache {
    const store = new KeyValueStore(path, 'response cache');
    try {
      const entries = store.table(TABLE, LENIENT_JSON);
      store.adoptLegacyTable(LEGACY_TABLE, entries, fromLegacyRow);
      return new ResponseCache(path, store, entries);
    } catch (error) {
      store.close();
      throw error;
    }
  }

  get(key: string): GenerationResult | undefined {
    const result = readResponseCacheEntry(this.entries.get(key));
    return result ? { ...result, cached: true } : undefined;
  }

  /** Whether `get` would answer from the cache (a row this version cannot read is no hit). */
  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  put(key: string, model: string, result: GenerationResult): void {
    this.entries.putMany([[key, entry(model, result)]]);
  }

  /** In one transaction (a batch's results, a whole round's). */
  putMany(results: Iterable<[key: string, model: string, result: GenerationResult]>): void {
    this.entries.putMany([...results].map(([key, model, result]) => [key, entry(model, result)] as const));
  }

  size(): number {
    return this.entries.size();
  }

  close(): void {
    this.store.close();
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
