import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataFileError } from '../../src/errors.js';
import { FLOAT32_VECTOR, JSON_VALUE, KeyValueStore, REAL_NUMBER } from '../../src/io/keyValueStore.js';

const dir = mkdtempSync(join(tmpdir(), 'hisrag-kv-'));

describe('the key-value store caches write to', () => {
  it('keeps values across opens, each table with its own codec', () => {
    const file = join(dir, 'a', 'store.sqlite');
    const first = new KeyValueStore(file, 'test cache');
    first.table('vectors', FLOAT32_VECTOR).putMany([['x', [0.5, -1, 2]]]);
    first.table('scores', REAL_NUMBER).putMany([['p', 1.25]]);
    first.table('notes', JSON_VALUE).putIfAbsent('n', { a: 1 });
    first.close();

    const second = new KeyValueStore(file, 'test cache');
    expect(second.table('vectors', FLOAT32_VECTOR).getMany(['x', 'y'])).toEqual([[0.5, -1, 2], undefined]);
    expect(second.table('scores', REAL_NUMBER).get('p')).toBe(1.25);
    const notes = second.table('notes', JSON_VALUE);
    notes.putIfAbsent('n', { a: 2 }); // the first value stays
    expect(notes.get('n')).toEqual({ a: 1 });
    expect([notes.has('n'), notes.has('m')]).toEqual([true, false]);
    expect(second.table('vectors', FLOAT32_VECTOR).size()).toBe(1);
    second.close();
  });

  it('refuses a file that is not SQLite, naming what it is for', () => {
    const file = join(dir, 'not-sqlite.sqlite');
    writeFileSync(file, 'this is not a database, it is text long enough to have a header'.repeat(10));
    expect(() => new KeyValueStore(file, 'test cache').table('t', REAL_NUMBER)).toThrow(DataFileError);
    expect(() => new KeyValueStore(file, 'test cache').table('t', REAL_NUMBER)).toThrow(/not a usable test cache/);
  });
});
