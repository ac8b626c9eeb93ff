import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChunkStore } from '../../src/index/chunkStore.js';
import { ExactSearch } from '../../src/index/exactSearch.js';
import { graphLibrary } from '../../src/index/graphs/graphLibraries.js';
import type { HnswParams } from '../../src/runFiles/indexManifest.js';
import { tuneEfSearch } from '../../src/index/tuneEfSearch.js';
import { normalized } from '../../src/index/vectorMath.js';
import { seededRandom } from '../../src/retrieval/seededRandom.js';

const DIM = 32;
const N = 3000;

function unitVectors(count: number, seed: string): Float32Array[] {
  const random = seededRandom(1, seed);
  return Array.from({ length: count }, () => normalized(Array.from({ length: DIM }, () => random.int(-1000, 1000) / 1000)));
}

describe.each(['hnswlib', 'usearch'] as const)('%s graph behind hisrag indexes', (library) => {
  let dir: string;
  let store: ChunkStore;
  const params: HnswParams = { space: 'ip', M: 16, efConstruction: 100, efSearch: 64, randomSeed: 1, library, ...(library === 'usearch' && { quantization: 'i8' as const }) };
  const queries = unitVectors(40, 'queries');

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), `hisrag-${library}-`));
    store = ChunkStore.open(join(dir, 'chunks.sqlite'));
    const vectors = unitVectors(N, 'corpus');
    store.append(vectors.map((_, i) => ({ id: `v${i}`, docId: `d${i}`, title: '', text: '', meta: {} })), vectors);
  });
  afterAll(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('builds from the stored vectors, writes its file, and finds ≥ 95% of the exact top 10 after reopening', async () => {
    const lib = await graphLibrary(library);
    const path = join(dir, lib.file);
    let reported = 0;
    await lib.build(store, DIM, params, path, { onAdded: (added) => (reported = added) });
    expect(reported).toBe(N);
    expect(existsSync(path)).toBe(true);
    const graph = lib.open(path, DIM, params, store);
    expect(graph.size).toBe(N);
    const exact = new ExactSearch(store, DIM, 'ip');
    const truth = await exact.nearest(queries, 10);
    const found = graph.search(queries, 10, 128);
    let hits = 0;
    found.forEach((list, q) => {
      expect(list).toHaveLength(10);
      const expected = new Map(truth[q]!.map((hit) => [hit.label, hit.score]));
      for (const hit of list) {
        if (!expected.has(hit.label)) continue;
        hits++;
        // i8 vectors in usearch's graph: scores are close, not equal.
        expect(hit.score).toBeCloseTo(expected.get(hit.label)!, library === 'usearch' ? 1 : 5);
      }
      for (let i = 1; i < list.length; i++) expect(list[i - 1]!.score).toBeGreaterThanOrEqual(list[i]!.score);
    });
    expect(hits / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
    // One query alone gives what it gets in a batch.
    expect(graph.search([queries[3]!], 10, 128)[0]!.map((h) => h.label)).toEqual(found[3]!.map((h) => h.label));
    await exact.close();
  });

  it('searches wider at a larger efSearch: tuning finds the smallest efSearch reaching the target', async () => {
    const lib = await graphLibrary(library);
    const graph = lib.open(join(dir, lib.file), DIM, params, store);
    const exact = new ExactSearch(store, DIM, 'ip');
    // i8 vectors rank near-ties differently from fp32 exact search: a lower ceiling on recall.
    const target = library === 'usearch' ? 0.9 : 0.97;
    const tuning = await tuneEfSearch(graph, exact, store, { k: 50, target, sample: 40 });
    await exact.close();
    expect(tuning.reached).toBe(true);
    expect(tuning.recall).toBeGreaterThanOrEqual(target);
    expect(tuning.curve.at(-1)!.efSearch).toBe(tuning.efSearch);
    // Every efSearch tried before the chosen one fell short of the target.
    for (const point of tuning.curve.slice(0, -1)) expect(point.recall).toBeLessThan(target);
    expect(tuning.curve[0]!.efSearch).toBe(50);
  });

  it('catches up with vectors stored after the file was written (incremental add)', async () => {
    const lib = await graphLibrary(library);
    const path = join(dir, lib.file);
    const extra = unitVectors(5, 'extra');
    store.append(extra.map((_, i) => ({ id: `x${i}`, docId: `x${i}`, title: '', text: '', meta: {} })), extra);
    // Opened before the catch-up is written: the new vectors are found from memory.
    const before = lib.open(path, DIM, params, store);
    expect(before.size).toBe(N + 5);
    expect(before.search([extra[2]!], 1, 64)[0]![0]!.label).toBe(N + 2);
    expect(await lib.catchUp(path, DIM, params, store)).toBe(5);
    const after = lib.open(path, DIM, params, store);
    expect(after.size).toBe(N + 5);
    expect(after.search([extra[4]!], 1, 64)[0]![0]!.label).toBe(N + 4);
  });
});

describe('efSearch tuning when the target is out of reach', () => {
  it('records reached: false and the smallest efSearch within 0.001 of the best recall, not the largest tried', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-knee-'));
    const store = ChunkStore.open(join(dir, 'chunks.sqlite'));
    const vectors = unitVectors(400, 'knee');
    store.append(vectors.map((_, i) => ({ id: `v${i}`, docId: 'd', title: '', text: '', meta: {} })), vectors);
    const exact = new ExactSearch(store, DIM, 'ip');
    // A "graph" that is exact search missing its second-best hit (the best is the query itself, which
    // tuning drops): recall (k − 1) / k at any efSearch.
    const capped = {
      size: 400,
      search: (queries: ArrayLike<number>[], k: number) => {
        const lists: { label: number; score: number }[][] = [];
        for (const query of queries) {
          const all = vectors.map((v, label) => ({ label, score: v.reduce((s, x, i) => s + x * query[i]!, 0) })).sort((a, b) => b.score - a.score);
          lists.push(all.filter((_, i) => i !== 1).slice(0, k));
        }
        return lists;
      },
    };
    const tuning = await tuneEfSearch(capped, exact, store, { k: 20, target: 0.99, sample: 10, maxEfSearch: 100 });
    expect(tuning.reached).toBe(false);
    expect(tuning.curve.length).toBeGreaterThan(3);
    expect(tuning.efSearch).toBe(20);
    await exact.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
