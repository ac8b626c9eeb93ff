import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { ChunkStore } from '../../src/index/chunkStore.js';
import { ExactSearch } from '../../src/index/exactSearch.js';
import { bytesPerVector, decodeVectorInto, encodeVector, toHalf } from '../../src/index/vectorEncoding.js';
import { normalized } from '../../src/index/vectorMath.js';
import { seededRandom } from '../../src/retrieval/seededRandom.js';

const DIM = 64;
function unitVectors(count: number, seed: string): Float32Array[] {
  const random = seededRandom(1, seed);
  return Array.from({ length: count }, () => normalized(Array.from({ length: DIM }, () => random.int(-1000, 1000) / 1000)));
}

describe('stored vector precision', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'hisrag-encoding-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('encodes IEEE half floats exactly where representable and rounds to nearest elsewhere', () => {
    expect(toHalf(1)).toBe(0x3c00);
    expect(toHalf(-2)).toBe(0xc000);
    expect(toHalf(0.5)).toBe(0x3800);
    expect(toHalf(65504)).toBe(0x7bff);
    expect(toHalf(1e6)).toBe(0x7c00);
    expect(toHalf(2 ** -24)).toBe(0x0001);
    expect(toHalf(1 + 2 ** -11)).toBe(0x3c00); // halfway: to even
    expect(toHalf(1 + 3 * 2 ** -11)).toBe(0x3c02);
  });

  it.each(['f32', 'f16', 'i8'] as const)('%s round-trips within its precision and has its size', (encoding) => {
    const [vector] = unitVectors(1, 'one');
    const blob = encodeVector(vector!, encoding);
    expect(blob.byteLength).toBe(bytesPerVector(encoding, DIM));
    const out = new Float32Array(DIM);
    decodeVectorInto(blob, encoding, DIM, out);
    const max = Math.max(...vector!.map(Math.abs));
    const tolerance = encoding === 'f32' ? 0 : encoding === 'f16' ? 2 ** -11 * max : max / 127 / 2 + 1e-7;
    vector!.forEach((x, i) => expect(Math.abs(out[i]! - x)).toBeLessThanOrEqual(tolerance));
  });

  it.each(['f16', 'i8'] as const)('a %s store gives the same nearest neighbours as an f32 store (sets of the top 10)', async (encoding) => {
    const vectors = unitVectors(1500, 'corpus');
    const queries = unitVectors(20, 'queries');
    const stores = (['f32', encoding] as const).map((e) => {
      const store = ChunkStore.open(join(dir, `${e}-${encoding}.sqlite`));
      store.setVectorEncoding(e);
      store.append(vectors.map((_, i) => ({ id: `v${i}`, docId: 'd', title: '', text: '', meta: {} })), vectors);
      return store;
    });
    const [exact32, exactReduced] = stores.map((store) => new ExactSearch(store, DIM, 'ip'));
    const a = await exact32!.nearest(queries, 10);
    const b = await exactReduced!.nearest(queries, 10);
    let same = 0;
    a.forEach((hits, q) => {
      const truth = new Set(hits.map((h) => h.label));
      same += b[q]!.filter((h) => truth.has(h.label)).length;
    });
    expect(same / 200).toBeGreaterThanOrEqual(encoding === 'f16' ? 0.99 : 0.95);
    for (const e of [exact32!, exactReduced!]) await e.close();
    // The precision is the store's own: reopened read-only, it decodes the same.
    const reopened = ChunkStore.open(stores[1]!.path, { readonly: true });
    expect(reopened.vectorEncoding).toBe(encoding);
    expect([...reopened.vector(7)!]).toEqual([...stores[1]!.vector(7)!]);
    reopened.close();
    for (const store of stores) store.close();
  });

  it.each(['f32', 'f16', 'i8'] as const)('scores stored %s vectors without decoding them like decode-then-dot (ip and cosine)', (encoding) => {
    const store = ChunkStore.open(join(dir, `score-${encoding}.sqlite`));
    store.setVectorEncoding(encoding);
    const vectors = unitVectors(30, 'score').map((v, i) => v.map((x) => x * (1 + i / 10))); // not unit: cosine differs from dot
    store.append(vectors.map((_, i) => ({ id: `v${i}`, docId: 'd', title: '', text: '', meta: {} })), vectors);
    const [query] = unitVectors(1, 'score-query');
    const labels = [29, 3, 17, 0];
    for (const cosine of [false, true]) {
      const scores = store.scoreStored(labels, query!, cosine);
      labels.forEach((label, i) => {
        const v = store.vector(label)!;
        const dot = v.reduce((s, x, j) => s + x * query![j]!, 0);
        const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
        expect(scores[i]).toBeCloseTo(cosine ? dot / norm : dot, 5);
      });
    }
    store.close();
  });

  it('refuses to change the precision once vectors are stored', () => {
    const store = ChunkStore.open(join(dir, 'fixed.sqlite'));
    store.setVectorEncoding('f16');
    const vectors = unitVectors(2, 'two');
    store.append(vectors.map((_, i) => ({ id: `v${i}`, docId: 'd', title: '', text: '', meta: {} })), vectors);
    expect(() => store.setVectorEncoding('i8')).toThrow(InputError);
    expect(() => store.setVectorEncoding('i8')).toThrow(/stored as f16/);
    store.close();
  });
});
