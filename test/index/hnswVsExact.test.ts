import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChunkStore } from '../../src/index/chunkStore.js';
import { ExactSearch } from '../../src/index/exactSearch.js';
import { createHnswGraph, distanceToScore, loadHnswGraph, saveHnswGraph } from '../../src/index/hnswGraph.js';
import type { HnswParams } from '../../src/runFiles/indexManifest.js';
import { normalized } from '../../src/index/vectorMath.js';
import { seededRandom } from '../../src/retrieval/seededRandom.js';

const DIM = 16;
const N = 1500;

function randomUnitVectors(count: number, seed: string): Float32Array[] {
  const random = seededRandom(1, seed);
  return Array.from({ length: count }, () => normalized(Array.from({ length: DIM }, () => random.int(-1000, 1000) / 1000)));
}

describe('HNSW against exact search on unit vectors', () => {
  let dir: string;
  let store: ChunkStore;
  const params: HnswParams = { space: 'ip', M: 16, efConstruction: 100, efSearch: 100, randomSeed: 1, library: 'hnswlib' };
  const queries = randomUnitVectors(30, 'queries');

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-hnsw-'));
    store = ChunkStore.open(join(dir, 'chunks.sqlite'));
    const vectors = randomUnitVectors(N, 'corpus');
    store.append(
      vectors.map((_, i) => ({ id: `v${i}`, docId: `d${i % 50}`, title: '', text: '', meta: {} })),
      vectors,
    );
  });
  afterAll(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exact search ranks by dot product, best first', async () => {
    const exact = new ExactSearch(store, DIM, 'ip');
    const hits = (await exact.nearest([queries[0]!], 5))[0]!;
    const all = [...store.vectors()].map(([label, v]) => ({ label, score: v.reduce((s, x, i) => s + x * queries[0]![i]!, 0) }));
    all.sort((a, b) => b.score - a.score);
    expect(hits.map((h) => h.label)).toEqual(all.slice(0, 5).map((h) => h.label));
    hits.forEach((hit, i) => expect(hit.score).toBeCloseTo(all[i]!.score, 5));
  });

  it('finds at least 95% of the exact top 10 and scores them identically, after a save/load round trip', async () => {
    const graph = createHnswGraph(DIM, params, N);
    for (const [label, vector] of store.vectors()) graph.addPoint(Array.from(vector), label);
    await saveHnswGraph(graph, join(dir, 'hnsw.bin'));
    const loaded = loadHnswGraph(join(dir, 'hnsw.bin'), DIM, params);
    expect(loaded.getCurrentCount()).toBe(N);
    const exact = new ExactSearch(store, DIM, 'ip');
    const truth = await exact.nearest(queries, 10);
    let found = 0;
    queries.forEach((query, q) => {
      const { neighbors, distances } = loaded.searchKnn(Array.from(query), 10);
      const expected = new Map(truth[q]!.map((hit) => [hit.label, hit.score]));
      neighbors.forEach((label, i) => {
        if (!expected.has(label)) return;
        found++;
        expect(distanceToScore(distances[i]!)).toBeCloseTo(expected.get(label)!, 5);
      });
    });
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });

  it('restricts exact search to the given labels', () => {
    const exact = new ExactSearch(store, DIM, 'ip');
    const scope = store.labelsOfDoc('d7');
    const hits = exact.search(queries[1]!, 100, scope);
    expect(hits).toHaveLength(scope.length);
    expect(hits.every((hit) => scope.includes(hit.label))).toBe(true);
  });
});
