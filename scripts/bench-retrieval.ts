/**
 * Index and retrieval benchmarks (figures for the issue's closing note):
 *   HNSW: build time, queries/s at k = 10 and 100, recall@10/@100 against exact search, per efSearch;
 *   BM25: build time and queries/s.
 *
 *   npx tsx scripts/bench-retrieval.ts [--n 300000] [--dim 64] [--queries 200] [--M 32] [--ef-construction 200]
 *        [--ef 64,128,256,512] [--bm25-docs 50000] [--only hnsw|bm25] [--json out.json]
 *
 * Vectors are random unit vectors (Gaussian, normalised; seeded): for HNSW the hardest case, since they
 * have no low-dimensional structure. BM25 documents are `node_modules/chinese-poetry` poems when that
 * package is installed, otherwise generated Chinese: words drawn by frequency from jieba's dictionary.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Chunk } from '../src/runFiles/corpusFiles.js';
import { buildBm25, Bm25Searcher } from '../src/index/bm25/bm25Index.js';
import { DEFAULT_BM25, DEFAULT_HNSW } from '../src/index/defaults.js';
import { ChunkStore } from '../src/index/chunkStore.js';
import { ExactSearch } from '../src/index/exactSearch.js';
import { createHnswGraph, type HnswGraph } from '../src/index/hnswGraph.js';
import { seededRandom } from '../src/retrieval/seededRandom.js';
import { mulberry32 } from './clusteredVectors.js';

/** `count` random unit vectors of `dim` dimensions (normalised Gaussians, Box–Muller), seeded. */
export function randomUnitVectors(count: number, dim: number, seed: string): Float32Array[] {
  const uniform = mulberry32(seededRandom(1, seed).int(0, 2 ** 31 - 1));
  return Array.from({ length: count }, () => {
    const v = new Float32Array(dim);
    let sum = 0;
    for (let i = 0; i < dim; i++) {
      const x = Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
      v[i] = x;
      sum += x * x;
    }
    const n = Math.sqrt(sum);
    for (let i = 0; i < dim; i++) v[i]! /= n;
    return v;
  });
}

/** Generated Chinese documents: words drawn by frequency from jieba's dictionary (a Zipf-like vocabulary). */
export function generatedChineseDocs(count: number, wordsPerDoc: number, seed: string): Chunk[] {
  const lines = readFileSync(resolve('node_modules/@node-rs/jieba/dict.txt'), 'utf8').split('\n');
  const words: string[] = [];
  const cumulative: number[] = [];
  let total = 0;
  for (const line of lines) {
    const [word, freq] = line.split(' ');
    if (!word || !/^[\u4e00-\u9fff]+$/.test(word)) continue;
    total += Number(freq) || 1;
    words.push(word);
    cumulative.push(total);
  }
  const random = seededRandom(1, seed);
  const pick = () => {
    const target = random.int(0, total - 1);
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! > target) hi = mid;
      else lo = mid + 1;
    }
    return words[lo]!;
  };
  return Array.from({ length: count }, (_, i) => {
    const parts: string[] = [];
    for (let w = 0; w < wordsPerDoc; w++) parts.push(pick() + (w % 8 === 7 ? '，' : ''));
    return { id: `gen:${i}`, docId: `gen-${i}`, title: '', text: parts.join('') + '。', meta: {} };
  });
}

/** Up to `count` poems of the chinese-poetry package (traditional script), when installed. */
function chinesePoetryDocs(count: number): Chunk[] | undefined {
  const root = resolve('node_modules/chinese-poetry');
  if (!existsSync(root)) return undefined;
  const docs: Chunk[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      if (docs.length >= count) return;
      const path = join(dir, name.name);
      if (name.isDirectory()) walk(path);
      else if (name.name.endsWith('.json')) {
        try {
          const records = JSON.parse(readFileSync(path, 'utf8'));
          if (!Array.isArray(records)) continue;
          for (const r of records) {
            if (docs.length >= count) return;
            if (Array.isArray(r?.paragraphs)) {
              docs.push({ id: `poetry:${docs.length}`, docId: `poetry-${docs.length}`, title: String(r.title ?? ''), text: r.paragraphs.join(''), meta: {} });
            }
          }
        } catch {
          // not a record file
        }
      }
    }
  };
  walk(root);
  return docs.length >= count ? docs : undefined;
}

export function recallAt(found: number[], truth: number[]): number {
  const expected = new Set(truth);
  return found.filter((label) => expected.has(label)).length / truth.length;
}

function timeQueries(graph: HnswGraph, queries: number[][], k: number): { qps: number; results: number[][] } {
  const started = process.hrtime.bigint();
  const results = queries.map((q) => graph.searchKnn(q, k).neighbors);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { qps: queries.length / seconds, results };
}

interface Args {
  n: number;
  dim: number;
  queries: number;
  M: number;
  efConstruction: number;
  ef: number[];
  bm25Docs: number;
  only?: string;
  json?: string;
}

function parseArgs(argv: string[]): Args {
  const get = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  return {
    n: Number(get('--n') ?? 300_000),
    dim: Number(get('--dim') ?? 64),
    queries: Number(get('--queries') ?? 200),
    M: Number(get('--M') ?? DEFAULT_HNSW.M),
    efConstruction: Number(get('--ef-construction') ?? DEFAULT_HNSW.efConstruction),
    ef: (get('--ef') ?? '64,128,256,512').split(',').map(Number),
    bm25Docs: Number(get('--bm25-docs') ?? 50_000),
    only: get('--only'),
    json: get('--json'),
  };
}

async function benchHnsw(args: Args, dir: string): Promise<Record<string, unknown>> {
  const log = (line: string) => process.stdout.write(line + '\n');
  log(`HNSW: ${args.n} random unit vectors, dim ${args.dim}, M ${args.M}, efConstruction ${args.efConstruction}, ${args.queries} queries`);
  let t = Date.now();
  const vectors = randomUnitVectors(args.n, args.dim, 'corpus');
  const queries = randomUnitVectors(args.queries, args.dim, 'queries').map((q) => Array.from(q));
  log(`  generated in ${((Date.now() - t) / 1000).toFixed(1)} s`);

  const store = ChunkStore.open(join(dir, 'vectors.sqlite'));
  t = Date.now();
  const batch = 5000;
  for (let start = 0; start < args.n; start += batch) {
    const part = vectors.slice(start, start + batch);
    store.append(part.map((_, i) => ({ id: `v${start + i}`, docId: `d${start + i}`, title: '', text: '', meta: {} })), part);
  }
  const storeSeconds = (Date.now() - t) / 1000;
  log(`  chunk store (sqlite, vectors + rows): ${storeSeconds.toFixed(1)} s`);

  t = Date.now();
  const graph = createHnswGraph(args.dim, { space: 'ip', M: args.M, efConstruction: args.efConstruction, efSearch: 64, randomSeed: 100 }, args.n);
  for (let i = 0; i < args.n; i++) graph.addPoint(Array.from(vectors[i]!), i);
  const buildSeconds = (Date.now() - t) / 1000;
  log(`  HNSW build: ${buildSeconds.toFixed(1)} s (${(args.n / buildSeconds).toFixed(0)} vectors/s)`);

  t = Date.now();
  const exact = new ExactSearch(store, args.dim, 'ip');
  const truth100 = (await exact.nearest(queries, 100)).map((hits) => hits.map((h) => h.label));
  const exactSeconds = (Date.now() - t) / 1000;
  log(`  exact ground truth: ${exactSeconds.toFixed(1)} s for ${args.queries} queries (load + one pass), ${(args.queries / exactSeconds).toFixed(1)} queries/s`);

  const rows: Record<string, number>[] = [];
  log('  efSearch | q/s k=10 | recall@10 | q/s k=100 | recall@100');
  for (const ef of args.ef) {
    graph.setEf(ef);
    const at10 = timeQueries(graph, queries, 10);
    graph.setEf(Math.max(ef, 100));
    const at100 = timeQueries(graph, queries, 100);
    const r10 = at10.results.reduce((s, found, q) => s + recallAt(found, truth100[q]!.slice(0, 10)), 0) / queries.length;
    const r100 = at100.results.reduce((s, found, q) => s + recallAt(found, truth100[q]!), 0) / queries.length;
    rows.push({ efSearch: ef, qps10: at10.qps, recall10: r10, qps100: at100.qps, recall100: r100 });
    log(`  ${String(ef).padStart(8)} | ${at10.qps.toFixed(0).padStart(8)} | ${r10.toFixed(4).padStart(9)} | ${at100.qps.toFixed(0).padStart(9)} | ${r100.toFixed(4)}`);
  }
  store.close();
  return { n: args.n, dim: args.dim, M: args.M, efConstruction: args.efConstruction, queries: args.queries, storeSeconds, buildSeconds, exactSeconds, rows };
}

async function benchBm25(args: Args, dir: string): Promise<Record<string, unknown>> {
  const log = (line: string) => process.stdout.write(line + '\n');
  let t = Date.now();
  const poetry = chinesePoetryDocs(args.bm25Docs);
  const docs = poetry ?? generatedChineseDocs(args.bm25Docs, 40, 'bm25');
  const source = poetry ? 'chinese-poetry' : 'generated Chinese (jieba dictionary words by frequency, 40 words/doc)';
  log(`BM25: ${docs.length} documents, ${source}; prepared in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const store = ChunkStore.open(join(dir, 'bm25.sqlite'));
  for (let start = 0; start < docs.length; start += 5000) store.append(docs.slice(start, start + 5000));
  t = Date.now();
  const { terms, avgdl } = buildBm25(store, DEFAULT_BM25);
  const buildSeconds = (Date.now() - t) / 1000;
  log(`  build (tokenise + postings + sqlite): ${buildSeconds.toFixed(1)} s (${(docs.length / buildSeconds).toFixed(0)} docs/s), ${terms} terms, avgdl ${avgdl.toFixed(1)}`);
  const searcher = new Bm25Searcher(store, DEFAULT_BM25);
  // Queries: 8-character spans of held-in documents (like a question's key phrase).
  const random = seededRandom(1, 'bm25-queries');
  const queries = Array.from({ length: args.queries }, () => {
    const text = [...docs[random.int(0, docs.length - 1)]!.text];
    const start = random.int(0, Math.max(0, text.length - 8));
    return text.slice(start, start + 8).join('');
  });
  const out: Record<string, number> = {};
  for (const k of [10, 100]) {
    t = Date.now();
    for (const q of queries) searcher.search(q, k);
    out[`qps${k}`] = queries.length / ((Date.now() - t) / 1000);
    log(`  queries/s at k=${k}: ${out[`qps${k}`]!.toFixed(0)}`);
  }
  store.close();
  return { docs: docs.length, source, buildSeconds, terms, avgdl, ...out, params: DEFAULT_BM25 };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'hisrag-bench-'));
  const results: Record<string, unknown> = {};
  try {
    if (args.only !== 'bm25') results.hnsw = await benchHnsw(args, dir);
    if (args.only !== 'hnsw') results.bm25 = await benchBm25(args, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (args.json) writeFileSync(args.json, JSON.stringify(results, null, 2) + '\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await main();
}
