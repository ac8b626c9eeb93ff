import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChunkStore } from '../../src/index/chunkStore.js';
import { ExactSearch } from '../../src/index/exactSearch.js';
import { seededRandom } from '../../src/retrieval/seededRandom.js';

const DIM = 24;
const N = 2000;

/** Clustered vectors (not unit length: cosine must normalise), seeded. */
function vectors(count: number, seed: string): Float32Array[] {
  const random = seededRandom(1, seed);
  const centres = Array.from({ length: 8 }, () => Array.from({ length: DIM }, () => random.int(-1000, 1000) / 1000));
  return Array.from({ length: count }, () => {
    const centre = centres[random.int(0, centres.length - 1)]!;
    return Float32Array.from(centre, (x) => x + random.int(-300, 300) / 1000);
  });
}

/** The naive loop: every row's dot product (or cosine), sorted. */
function naive(rows: Float32Array[], query: Float32Array, k: number, cosine: boolean, exclude = new Set<number>()): number[] {
  const length = (v: ArrayLike<number>) => Math.sqrt(Array.from(v).reduce((s, x) => s + x * x, 0));
  const q = cosine ? query.map((x) => x / length(query)) : query;
  return rows
    .map((row, label) => ({ label, score: row.reduce((s, x, i) => s + x * q[i]!, 0) / (cosine ? length(row) : 1) }))
    .filter((hit) => !exclude.has(hit.label))
    .sort((a, b) => b.score - a.score || a.label - b.label)
    .slice(0, k)
    .map((hit) => hit.label);
}

describe('block-wise exact search (onnxruntime matrix products, streaming top-k)', () => {
  let dir: string;
  let store: ChunkStore;
  const rows = vectors(N, 'corpus');
  const queries = vectors(40, 'queries');

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-exact-'));
    store = ChunkStore.open(join(dir, 'chunks.sqlite'));
    store.append(rows.map((_, i) => ({ id: `v${i}`, docId: `d${i % 50}`, title: '', text: '', meta: {} })), rows);
  });
  afterAll(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const space of ['ip', 'cosine'] as const) {
    it(`gives the same top-100 with small streamed blocks as in one pass (${space})`, async () => {
      const onePass = new ExactSearch(store, DIM, space, { blockRows: N });
      // 37 rows a block (the last one short), nothing kept resident, 7 queries per product.
      const streamed = new ExactSearch(store, DIM, space, { blockRows: 37, residentBytes: 0, queryBatch: 7 });
      const a = await onePass.nearest(queries, 100);
      const b = await streamed.nearest(queries, 100);
      expect(b).toEqual(a);
      expect(a.every((hits) => hits.length === 100)).toBe(true);
      await onePass.close();
      await streamed.close();
    });

    it(`ranks like the naive loop (${space})`, async () => {
      const exact = new ExactSearch(store, DIM, space, { blockRows: 300 });
      const found = await exact.nearest(queries, 20);
      queries.forEach((query, i) => {
        const expected = naive(rows, query, 20, space === 'cosine');
        // Float32 products in another order: compare sets (a near-tie could swap neighbours).
        expect(found[i]!.map((hit) => hit.label).sort()).toEqual(expected.sort());
      });
      await exact.close();
    });
  }

  it('keeps resident blocks and gives the same answer on the next search', async () => {
    const exact = new ExactSearch(store, DIM, 'ip', { blockRows: 128 });
    const first = await exact.nearest(queries.slice(0, 3), 10);
    const second = await exact.nearest(queries.slice(0, 3), 10);
    expect(second).toEqual(first);
    await exact.close();
  });

  it('never returns excluded labels', async () => {
    const exact = new ExactSearch(store, DIM, 'ip', { blockRows: 500 });
    const exclude = new Set(naive(rows, queries[0]!, 5, false));
    const hits = (await exact.nearest([queries[0]!], 10, { exclude }))[0]!;
    expect(hits.some((hit) => exclude.has(hit.label))).toBe(false);
    expect(hits.map((hit) => hit.label).sort()).toEqual(naive(rows, queries[0]!, 10, false, exclude).sort());
    await exact.close();
  });

  it('refuses a query of the wrong dimension', async () => {
    const exact = new ExactSearch(store, DIM, 'ip');
    await expect(exact.nearest([new Float32Array(DIM + 1)], 5)).rejects.toThrow(/25 dimensions, the index 24/);
    await exact.close();
  });
});
