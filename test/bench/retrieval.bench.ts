/**
 * Small, quick retrieval benchmarks (vitest bench): HNSW vs exact search queries and BM25 queries.
 * The full-size figures (300k vectors, 50k documents) come from `npx tsx scripts/bench-retrieval.ts`.
 *   npx vitest bench --run test/bench/retrieval.bench.ts
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bench, describe } from 'vitest';
import { generatedChineseDocs, randomUnitVectors } from '../../scripts/bench-retrieval.js';
import { buildBm25, Bm25Searcher } from '../../src/index/bm25/bm25Index.js';
import { DEFAULT_BM25, DEFAULT_HNSW } from '../../src/index/defaults.js';
import { ChunkStore } from '../../src/index/chunkStore.js';
import { ExactSearch } from '../../src/index/exactSearch.js';
import { createHnswGraph } from '../../src/index/hnswGraph.js';

const N = 20_000;
const DIM = 64;
const dir = mkdtempSync(join(tmpdir(), 'hisrag-bench-'));
const vectors = randomUnitVectors(N, DIM, 'bench-corpus');
const queries = randomUnitVectors(50, DIM, 'bench-queries').map((q) => Array.from(q));
const store = ChunkStore.open(join(dir, 'vectors.sqlite'));
store.append(vectors.map((_, i) => ({ id: `v${i}`, docId: `d${i % 100}`, title: '', text: '', meta: {} })), vectors);
const graph = createHnswGraph(DIM, { space: 'ip', ...DEFAULT_HNSW, M: 16, efConstruction: 100 }, N);
vectors.forEach((v, i) => graph.addPoint(Array.from(v), i));
const exact = new ExactSearch(store, DIM, 'ip');

const docs = generatedChineseDocs(3000, 40, 'bench-bm25');
const textStore = ChunkStore.open(join(dir, 'bm25.sqlite'));
textStore.append(docs);
buildBm25(textStore, DEFAULT_BM25);
const bm25 = new Bm25Searcher(textStore, DEFAULT_BM25);
const textQueries = docs.slice(0, 50).map((d) => [...d.text].slice(0, 8).join(''));

describe(`dense search, ${N} vectors × ${DIM}, 50 queries, k = 100`, () => {
  bench('hnsw efSearch 256', () => {
    graph.setEf(256);
    for (const q of queries) graph.searchKnn(q, 100);
  });
  bench('exact (brute force)', async () => {
    await exact.nearest(queries, 100);
  });
});

describe('bm25, 3000 generated Chinese documents, 50 queries, k = 10', () => {
  bench('bm25 search', () => {
    for (const q of textQueries) bm25.search(q, 10);
  });
});
