import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { DataFileError } from '../../src/errors.js';
import {
  closeResponseCaches,
  openResponseCache,
  ResponseCache,
  responseCacheKey,
  stableStringify,
} from '../../src/generation/responseCache.js';
import type { GenerationResult } from '../../src/generation/types.js';
import { JSON_VALUE, KeyValueStore } from '../../src/io/keyValueStore.js';
import { REPO_ROOT } from '../helpers/runCli.js';

const WRITER = fileURLToPath(new URL('./responseCacheWriter.ts', import.meta.url));
const cacheFile = () => join(mkdtempSync(join(tmpdir(), 'hisrag-response-cache-')), 'responses.sqlite');
const answer = (text: string, extra: Partial<GenerationResult> = {}): GenerationResult => ({ text, raw: `<think>…</think>${text}`, ...extra });

afterEach(() => closeResponseCaches());

describe('response cache keys', () => {
  it('hash equal requests equally whatever the key order, and differ when anything that changes the answer does', () => {
    expect(stableStringify({ b: 1, a: [{ d: 2, c: undefined }] })).toBe('{"a":[{"d":2}],"b":1}');
    const key = responseCacheKey({ model: 'm', messages: [{ role: 'user', content: 'q' }], params: { temperature: 0, maxTokens: 8 } });
    expect(responseCacheKey({ params: { maxTokens: 8, temperature: 0 }, messages: [{ content: 'q', role: 'user' }], model: 'm' })).toBe(key);
    expect(responseCacheKey({ model: 'm', messages: [{ role: 'user', content: 'q' }], params: { temperature: 0.7, maxTokens: 8 } })).not.toBe(key);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('the response cache on the key-value store', () => {
  it('serves what was put, marked cached, with only the result fields; has, putMany and size', () => {
    const file = cacheFile();
    const cache = ResponseCache.open(file);
    expect(cache.path).toBe(file);
    expect(cache.get('k1')).toBeUndefined();
    expect(cache.has('k1')).toBe(false);
    cache.put('k1', 'model-a', answer('一', { usage: { promptTokens: 3 }, cached: false, rateLimit: { rateLimited: 2, waitedMs: 5 } }));
    expect(cache.get('k1')).toEqual({ text: '一', raw: '<think>…</think>一', usage: { promptTokens: 3 }, cached: true });
    expect(cache.has('k1')).toBe(true);

    cache.putMany([
      ['k2', 'model-a', answer('二')],
      ['k3', 'model-b', answer('三', { toolCalls: [{ id: 'c1', name: 'search', args: { q: '唐' } }] })],
    ]);
    expect(cache.get('k3')).toMatchObject({ text: '三', toolCalls: [{ id: 'c1', name: 'search', args: { q: '唐' } }], cached: true });
    expect(['k1', 'k2', 'k3', 'k4'].map((k) => cache.has(k))).toEqual([true, true, true, false]);
    expect(cache.size()).toBe(3);
    cache.close();

    // The model and the time are kept in the stored value for people inspecting the file.
    const store = new KeyValueStore(file, 'test');
    expect(store.table('llm_responses', JSON_VALUE).get('k3')).toMatchObject({ model: 'model-b', createdAt: expect.any(String), result: { text: '三' } });
    store.close();
  });

  it('stores a putMany in one transaction: nothing when an entry fails', () => {
    const cache = ResponseCache.open(cacheFile());
    function* entries(): Generator<[string, string, GenerationResult]> {
      yield ['a', 'm', answer('a')];
      throw new Error('the batch result file ended early');
    }
    expect(() => cache.putMany(entries())).toThrow(/ended early/);
    expect(cache.has('a')).toBe(false);
    expect(cache.size()).toBe(0);
    cache.close();
  });

  it('reads a row it cannot parse as a miss (no error), and the next success overwrites it', () => {
    const file = cacheFile();
    const store = new KeyValueStore(file, 'test');
    const raw = store.table('llm_responses', { sqlType: 'TEXT', encode: (s: string) => s, decode: (s: string) => s });
    raw.putMany([
      ['broken', '{"result": {"text": '],
      ['other-shape', JSON.stringify({ model: 'm', result: { text: 1 } })],
    ]);
    store.close();

    const cache = ResponseCache.open(file);
    expect(cache.get('broken')).toBeUndefined();
    expect(cache.has('broken')).toBe(false);
    expect(cache.get('other-shape')).toBeUndefined();
    cache.put('broken', 'm', answer('fixed'));
    expect(cache.get('broken')).toMatchObject({ text: 'fixed', cached: true });
    cache.close();
  });

  it('refuses a file that is not SQLite, naming it a response cache', () => {
    const file = cacheFile();
    writeFileSync(file, 'not a database, but text long enough to have a header '.repeat(10));
    expect(() => ResponseCache.open(file)).toThrow(DataFileError);
    expect(() => ResponseCache.open(file)).toThrow(/not a usable response cache/);
  });

  it('opens one cache per resolved path per process', () => {
    const file = cacheFile();
    const a = openResponseCache(file);
    expect(openResponseCache(join(file, '..', '.', 'responses.sqlite'))).toBe(a);
    closeResponseCaches();
    expect(openResponseCache(file)).not.toBe(a);
  });
});

describe('a cache file written before the cache moved onto the key-value store', () => {
  /** The previous version's layout: its own table `responses (key, model, value, created_at)`. */
  function oldCacheFile(): string {
    const file = cacheFile();
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, value TEXT NOT NULL, created_at TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO responses (key, model, value, created_at) VALUES (?, ?, ?, ?)');
    insert.run('old-1', 'qwen', JSON.stringify({ text: '秦', raw: '秦', usage: { promptTokens: 10, completionTokens: 1 } }), '2026-11-01T00:00:00.000Z');
    insert.run('old-2', 'qwen', JSON.stringify({ text: '汉', raw: '<think>嗯</think>汉', reasoning: '嗯' }), '2026-11-02T00:00:00.000Z');
    insert.run('old-broken', 'qwen', '{"text": "unterminated', '2026-11-03T00:00:00.000Z');
    insert.run('old-shape', 'qwen', JSON.stringify({ answer: '唐' }), '2026-11-04T00:00:00.000Z');
    // More rows than one page of the move, so the paging is exercised.
    for (let i = 0; i < 1200; i++) insert.run(`bulk-${String(i).padStart(4, '0')}`, 'qwen', JSON.stringify({ text: `${i}`, raw: `${i}` }), '2026-11-05T00:00:00.000Z');
    db.close();
    return file;
  }

  it('still gives its hits: the rows move into the store once, keeping model and time, and the old table goes', () => {
    const file = oldCacheFile();
    const cache = ResponseCache.open(file);
    expect(cache.get('old-1')).toEqual({ text: '秦', raw: '秦', usage: { promptTokens: 10, completionTokens: 1 }, cached: true });
    expect(cache.get('old-2')).toEqual({ text: '汉', raw: '<think>嗯</think>汉', reasoning: '嗯', cached: true });
    expect(cache.get('bulk-0000')?.text).toBe('0');
    expect(cache.get('bulk-1199')?.text).toBe('1199');
    // Rows the previous version could not read either are misses, never errors.
    expect(cache.get('old-broken')).toBeUndefined();
    expect(cache.has('old-shape')).toBe(false);
    // The unparsable row is left out; the readable rows (and the one of another shape) are kept.
    expect(cache.size()).toBe(2 + 1 + 1200);
    cache.put('new-1', 'qwen', answer('宋'));
    cache.close();

    const db = new Database(file, { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
    expect(tables.map((t) => t.name)).toEqual(['llm_responses']);
    const stored = JSON.parse((db.prepare('SELECT value FROM llm_responses WHERE key = ?').get('old-1') as { value: string }).value);
    expect(stored).toMatchObject({ model: 'qwen', createdAt: '2026-11-01T00:00:00.000Z', result: { text: '秦' } });
    db.close();

    // Opened again: nothing left to move, everything still there.
    const again = ResponseCache.open(file);
    expect(again.size()).toBe(2 + 1 + 1200 + 1);
    expect(again.get('old-2')?.text).toBe('汉');
    expect(again.get('new-1')?.text).toBe('宋');
    again.close();
  });

  it('is moved once when two handles open it, each seeing every hit', () => {
    const file = oldCacheFile();
    const a = ResponseCache.open(file);
    const b = ResponseCache.open(file);
    expect(a.get('old-1')?.text).toBe('秦');
    expect(b.get('old-1')?.text).toBe('秦');
    expect(b.size()).toBe(a.size());
    a.close();
    b.close();
  });
});

describe('several handles on one cache file', () => {
  it('two connections in one process see each other’s writes', () => {
    const file = cacheFile();
    const a = ResponseCache.open(file);
    const b = ResponseCache.open(file);
    a.put('from-a', 'm', answer('甲'));
    expect(b.get('from-a')).toMatchObject({ text: '甲', cached: true });
    b.putMany([['from-b', 'm', answer('乙')]]);
    expect(a.has('from-b')).toBe(true);
    expect(a.size()).toBe(2);
    a.close();
    b.close();
  });

  it('two processes writing at once see each other’s writes, none lost to a locked file', async () => {
    const file = cacheFile();
    const cache = ResponseCache.open(file);
    cache.put('from-parent', 'm', answer('父'));
    const count = 300;
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, file, 'from-parent', String(count)], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let done = false;
    void exited.then(() => (done = true));
    // Write while the child writes (its start-up included), yielding so its exit is noticed.
    let parentWrites = 0;
    while (!done) {
      cache.put(`parent-${parentWrites++}`, 'm', answer('父'));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(await exited, stderr).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ sawParent: '父', written: 2 * count });
    expect(cache.get(`child-${count - 1}`)).toMatchObject({ text: `child answer ${count - 1}`, cached: true });
    expect(cache.has('child-batch-0')).toBe(true);
    expect(cache.size()).toBe(1 + parentWrites + 2 * count);
    cache.close();
  });
});
