import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TextEmbedder } from '../../src/embedding/types.js';
import type { OpenedIndex } from '../../src/index/openIndex.js';
import { withQueryVectorCache } from '../../src/retrieval/queryVectorCache.js';

const dir = mkdtempSync(join(tmpdir(), 'hisrag-query-vectors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A text's vector: its length and code points as float32 values (what a model gives), so a cached copy must equal it bit for bit. */
const vectorOf = (text: string) => [text.length, ...[...text].map((c) => Math.fround(c.codePointAt(0)! / 7))].slice(0, 4);

/** An index that records every list of texts it is asked to embed. */
function fakeIndex(fingerprint = 'sha256:weights') {
  const asked: string[][] = [];
  const index = {
    dir: 'fake',
    manifest: { kind: 'hnsw', embedder: { identity: { model: 'm', dimension: 4, pooling: 'cls', normalize: true, queryPrefix: 'q: ', documentPrefix: '' }, fingerprint } },
    embedQueries: async (texts: string[]) => (asked.push(texts), texts.map(vectorOf)),
    close: async () => {},
  } as unknown as OpenedIndex;
  return { index, asked };
}

const embedder = (key: string | undefined) => ({ embedQuery: async () => [], vectorKey: async () => key }) as unknown as TextEmbedder;

describe('withQueryVectorCache', () => {
  it('embeds the questions once; later the same questions come from the file, equal to the model’s vectors', async () => {
    const file = join(dir, 'once.sqlite');
    const texts = ['甲', '乙丙', '甲'];
    const cold = fakeIndex();
    const first = await withQueryVectorCache(cold.index, embedder('k1'), { file }).embedQueries(texts);
    expect(cold.asked).toEqual([texts]);
    const warm = fakeIndex();
    const cached = withQueryVectorCache(warm.index, embedder('k1'), { file });
    expect(await cached.embedQueries(texts)).toEqual(first);
    expect(await cached.embedQuery('乙丙')).toEqual(vectorOf('乙丙'));
    expect(warm.asked).toEqual([]);
    await cached.close();
  });

  it('misses when the embedder’s vector key or the index’s recorded model fingerprint differs', async () => {
    const file = join(dir, 'keys.sqlite');
    await withQueryVectorCache(fakeIndex().index, embedder('k1'), { file }).embedQueries(['甲']);
    const otherKey = fakeIndex();
    await withQueryVectorCache(otherKey.index, embedder('k2'), { file }).embedQueries(['甲']);
    const otherWeights = fakeIndex('sha256:regenerated');
    await withQueryVectorCache(otherWeights.index, embedder('k1'), { file }).embedQueries(['甲']);
    expect([otherKey.asked, otherWeights.asked]).toEqual([[['甲']], [['甲']]]);
  });

  it('one question missing: the whole list is embedded together, as without a cache, and only the new one stored', async () => {
    const file = join(dir, 'partial.sqlite');
    await withQueryVectorCache(fakeIndex().index, embedder('k1'), { file }).embedQueries(['甲']);
    const partial = fakeIndex();
    expect(await withQueryVectorCache(partial.index, embedder('k1'), { file }).embedQueries(['甲', '丁'])).toEqual([vectorOf('甲'), vectorOf('丁')]);
    expect(partial.asked).toEqual([['甲', '丁']]);
    const warm = fakeIndex();
    await withQueryVectorCache(warm.index, embedder('k1'), { file }).embedQueries(['丁', '甲']);
    expect(warm.asked).toEqual([]);
  });

  it('read-only (--frozen) stores nothing and creates no file; an embedder without a vector key, or whose key fails, is left alone', async () => {
    const file = join(dir, 'frozen.sqlite');
    const frozen = fakeIndex();
    await withQueryVectorCache(frozen.index, embedder('k1'), { file, readOnly: true }).embedQueries(['甲']);
    expect(existsSync(file)).toBe(false);
    await withQueryVectorCache(fakeIndex().index, embedder('k1'), { file }).embedQueries(['甲']);
    const again = fakeIndex();
    const readOnly = withQueryVectorCache(again.index, embedder('k1'), { file, readOnly: true });
    await readOnly.embedQueries(['甲']);
    await readOnly.embedQueries(['戊']);
    await readOnly.embedQueries(['戊']);
    expect(again.asked).toEqual([['戊'], ['戊']]);

    const keyless = join(dir, 'keyless.sqlite');
    const plain = fakeIndex();
    await withQueryVectorCache(plain.index, embedder(undefined), { file: keyless }).embedQueries(['甲']);
    expect(plain.asked).toEqual([['甲']]);
    // A key that cannot be computed (model files missing): the index embeds (and reports what is wrong).
    const failing = fakeIndex();
    const broken = { embedQuery: async () => [], vectorKey: () => Promise.reject(new Error('ENOENT config.json')) } as unknown as TextEmbedder;
    await withQueryVectorCache(failing.index, broken, { file: keyless }).embedQueries(['甲']);
    expect(failing.asked).toEqual([['甲']]);
    expect(existsSync(keyless)).toBe(false);
  });
});
