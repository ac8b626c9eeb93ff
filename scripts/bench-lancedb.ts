/**
 * LanceDB next to HNSW on the same vectors: build time, bytes per chunk on disk, RAM while serving,
 * ms/query and recall@k against exact search — hisrag's `hnsw` and `lancedb` indexes, plus
 * @langchain/community's HNSWLib store (`langchain-hnswlib`, built in memory from the hnsw index's
 * vectors at every start, as LangChain.js users run it).
 *
 *   node --import tsx scripts/bench-lancedb.ts [--n 50000] [--dim 1024] [--queries 200] [--k 100] [--dir /tmp/x] [--reuse]
 *
 * Vectors: synthetic, clustered like real embeddings (unit vectors around 1,000 random centres, so
 * neighbourhoods are dense and ANN search is not trivially easy), one per chunk; queries are fresh
 * vectors drawn the same way. Both indexes are built by `buildIndex` with a stand-in embedder that
 * returns these vectors, so build time is storage + index construction (no model). Each retriever is
 * served in its own child process, so its RAM (RSS growth from opening the index through the last
 * query) is its own.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Embeddings } from '@langchain/core/embeddings';
import type { TextEmbedder } from '../src/embedding/types.js';
import { type EmbedderIdentity, readIndexManifest } from '../src/runFiles/indexManifest.js';
import { buildIndex } from '../src/index/buildIndex.js';
import { createRetrieverContext } from '../src/retrieval/registry.js';
import { createRetriever } from '../src/retrieval/createRetriever.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '50000' },
    dim: { type: 'string', default: '1024' },
    queries: { type: 'string', default: '200' },
    k: { type: 'string', default: '100' },
    dir: { type: 'string' },
    /** Serve the indexes already built in --dir (build times from their manifests). */
    reuse: { type: 'boolean', default: false },
    // child mode
    serve: { type: 'string' },
    spec: { type: 'string' },
    out: { type: 'string' },
  },
});
const N = Number(values.n);
const DIM = Number(values.dim);
const QUERIES = Number(values.queries);
const K = Number(values.k);
const CENTRES = 1000;

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
}
const centreRandom = mulberry32(42);
const centres = Array.from({ length: CENTRES }, () => Float32Array.from({ length: DIM }, () => gaussian(centreRandom)));

/** Vector `i` of a stream: a random centre plus noise of the same scale, L2-normalised. */
function vectorFor(stream: 'passage' | 'query', i: number): number[] {
  const random = mulberry32(createHash('sha256').update(`${stream}:${i}`).digest().readUInt32LE(0));
  const centre = centres[Math.floor(random() * CENTRES)]!;
  const v = Array.from({ length: DIM }, (_, d) => centre[d]! + 0.9 * gaussian(random));
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/** Stands in for a model: `passage <i>` and `query <i>` map to their synthetic vectors. */
class SyntheticEmbedder extends Embeddings implements TextEmbedder {
  constructor() {
    super({});
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((text) => vectorFor('passage', Number(/passage (\d+)/.exec(text)![1])));
  }
  async embedQuery(text: string): Promise<number[]> {
    return vectorFor('query', Number(/query (\d+)/.exec(text)![1]));
  }
  async identity(): Promise<EmbedderIdentity> {
    return { model: `synthetic-clustered-${DIM}`, dimension: DIM, pooling: 'cls', normalize: true, queryPrefix: '', documentPrefix: '' };
  }
  async dispose(): Promise<void> {}
}

interface ServeResult {
  spec: Record<string, unknown>;
  openSeconds: number;
  msPerQuery: number;
  rssGrowthMiB: number;
  ids: string[][];
}

/** Child: open one retriever, run the queries, report RSS growth, latency and the ranked ids. */
async function serve(): Promise<void> {
  const spec = JSON.parse(values.spec!) as { name: string } & Record<string, unknown>;
  const embedder = new SyntheticEmbedder();
  const texts = Array.from({ length: QUERIES }, (_, j) => `query ${j}`);
  const vectorsWarm = await Promise.all(texts.map((t) => embedder.embedQuery(t)));
  void vectorsWarm;
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const opened = Date.now();
  const retriever = await createRetriever(spec, createRetrieverContext({ embedder }));
  const openSeconds = (Date.now() - opened) / 1000;
  for (const text of texts.slice(0, 5)) await retriever.retrieve({ text }, K);
  const ids: string[][] = [];
  const started = performance.now();
  for (const text of texts) ids.push((await retriever.retrieve({ text }, K)).map((hit) => hit.id));
  const msPerQuery = (performance.now() - started) / QUERIES;
  const rssGrowthMiB = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  await retriever.close();
  const result: ServeResult = { spec, openSeconds, msPerQuery, rssGrowthMiB, ids };
  writeFileSync(values.out!, JSON.stringify(result));
}

function runChild(spec: Record<string, unknown>, out: string): Promise<ServeResult> {
  const args = ['--expose-gc', '--import', 'tsx', new URL(import.meta.url).pathname, '--serve', '1', '--spec', JSON.stringify(spec), '--out', out];
  for (const key of ['n', 'dim', 'queries', 'k'] as const) args.push(`--${key}`, String(values[key]));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(readFileSync(out, 'utf8')) as ServeResult) : reject(new Error(`${JSON.stringify(spec)}: exit ${code}`))));
  });
}

function diskBytes(path: string): number {
  return Number(execFileSync('du', ['-sb', path], { encoding: 'utf8' }).split('\t')[0]);
}

async function main(): Promise<void> {
  const root = values.dir ?? mkdtempSync(join(tmpdir(), 'hisrag-bench-lancedb-'));
  const corpusDir = join(root, 'corpus');
  mkdirSync(corpusDir, { recursive: true });
  if (values.reuse) process.stdout.write(`reusing the indexes in ${root}\n`);
  const lines: string[] = [];
  for (let i = 0; i < N; i++) lines.push(JSON.stringify({ id: `bench:${i}`, docId: `doc-${Math.floor(i / 10)}`, title: '', text: `passage ${i}`, meta: {} }));
  const body = lines.join('\n') + '\n';
  writeFileSync(join(corpusDir, 'chunks.jsonl'), body);
  writeFileSync(
    join(corpusDir, 'manifest.json'),
    JSON.stringify({
      name: 'bench', builder: 'bench', complete: true, source: { path: 'synthetic' }, parameters: {},
      counts: { documentsRead: Math.ceil(N / 10), documentsSkipped: {}, chunksWritten: N, duplicateChunksDropped: 0 },
      contentHash: `sha256:${createHash('sha256').update(body).digest('hex')}`, toolVersion: 'bench', timings: {},
    }),
  );
  process.stdout.write(`${N} synthetic clustered ${DIM}-d unit vectors, ${QUERIES} queries, k = ${K}; work dir ${root}\n`);

  const embedder = new SyntheticEmbedder();
  const progress = { silent: true };
  const builds: Record<string, number> = {};
  let vectorIndex = '';
  for (const kind of ['hnsw', 'lancedb'] as const) {
    const started = Date.now();
    const manifest = values.reuse
      ? readIndexManifest(join(root, kind))!
      : await buildIndex({ corpusDir, out: join(root, kind), retriever: kind, embedderInstance: embedder, passage: 'text', batchSize: 1000, progress });
    builds[kind] = values.reuse ? manifest.timings.totalSeconds! : (Date.now() - started) / 1000;
    if (manifest.lancedb) vectorIndex = manifest.lancedb.vectorIndex === 'ivf-pq' ? 'IVF-PQ' : 'exact, no vector index';
    process.stdout.write(`built ${kind} in ${builds[kind]!.toFixed(1)} s ${JSON.stringify(manifest.timings)}${manifest.lancedb ? ` ${JSON.stringify(manifest.lancedb)}` : ''}\n`);
  }

  const rows: { label: string; build: string; bytes: string; result: ServeResult }[] = [];
  const exact = await runChild({ name: 'exact', index: join(root, 'hnsw') }, join(root, 'exact.json'));
  const hnswBytes = diskBytes(join(root, 'hnsw'));
  const lanceBytes = diskBytes(join(root, 'lancedb'));
  const variants: [string, Record<string, unknown>, string, string][] = [
    ['hisrag `hnsw` (efSearch 3072, the default)', { name: 'hnsw', index: join(root, 'hnsw') }, `${builds.hnsw!.toFixed(1)} s`, (hnswBytes / N).toFixed(0)],
    ['hisrag `hnsw` (efSearch 512)', { name: 'hnsw', index: join(root, 'hnsw'), efSearch: 512 }, '″', '″'],
    [`hisrag \`lancedb\` (${vectorIndex}, nprobes 32, refine ×10, the defaults)`, { name: 'lancedb', index: join(root, 'lancedb') }, `${builds.lancedb!.toFixed(1)} s`, (lanceBytes / N).toFixed(0)],
    ['hisrag `lancedb` (nprobes 64, refine ×20)', { name: 'lancedb', index: join(root, 'lancedb'), nprobes: 64, refineFactor: 20 }, '″', '″'],
    ['`langchain-hnswlib` (LangChain HNSWLib, its defaults)', { name: 'langchain-hnswlib', index: join(root, 'hnsw') }, '', '– (in memory)'],
  ];
  for (const [label, spec, build, bytes] of variants) {
    const result = await runChild(spec, join(root, `${rows.length}.json`));
    rows.push({ label, build: build || `${result.openSeconds.toFixed(1)} s at every start`, bytes, result });
    process.stdout.write(`${label}: ${result.msPerQuery.toFixed(2)} ms/query\n`);
  }

  const recall = (ids: string[][]) => {
    let found = 0;
    ids.forEach((list, q) => {
      const truth = new Set(exact.ids[q]);
      found += list.filter((id) => truth.has(id)).length;
    });
    return found / exact.ids.reduce((sum, list) => sum + list.length, 0);
  };
  process.stdout.write(`\nexact search (ground truth): ${exact.msPerQuery.toFixed(1)} ms/query\n\n`);
  process.stdout.write(`| index | build | bytes/chunk on disk | RAM serving (RSS growth) | ms/query (k = ${K}) | recall@${K} |\n|---|---|---|---|---|---|\n`);
  for (const row of rows) {
    const r = row.result;
    process.stdout.write(`| ${row.label} | ${row.build} | ${row.bytes} | ${r.rssGrowthMiB.toFixed(0)} MiB | ${r.msPerQuery.toFixed(1)} | ${recall(r.ids).toFixed(3)} |\n`);
  }
}

if (values.serve) await serve();
else await main();
