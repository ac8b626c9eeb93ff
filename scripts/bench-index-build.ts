/**
 * Index builds over remote embedding servers (issue 27): is `hisrag index build` bounded by the graph
 * (or by the servers), never by hisrag in between?
 *
 *   node --import tsx scripts/bench-index-build.ts [--n 50000] [--dim 1024] [--M 32] [--ef-construction 200]
 *        [--batch 64] [--concurrency 4] [--replica-n 6000] [--rate 2] [--only graph|replicas] [--dir D] [--keep]
 *
 * 1. graph: local embedding servers (child processes) serve n clustered 1024-d vectors (ClusteredVectors,
 *    `flat`), precomputed and looked up by the chunk's text, base64 of float32 as OpenAI's SDK asks for.
 *    `hisrag index build --retriever hnsw` (the CLI itself, its own process, the `openai` embedder) builds
 *    the index over two of them; raw hnswlib-node (`HierarchicalNSW.addPoint` over the same vectors, same
 *    M / efConstruction, only the addPoint calls timed) runs in this process before and after it.
 *    Printed: vectors/s of each, and hisrag ÷ raw on the whole build (tuning included) and without the
 *    efSearch tuning (which raw hnswlib does not do).
 * 2. replicas: servers that each answer at most `--rate` requests a second (a GPU's throughput: requests
 *    queue, none is refused); the same build of `--replica-n` chunks over one of them and over two.
 *    Printed: the speed-up of two over one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import hnswlib from 'hnswlib-node';
import { ClusteredVectors, writeSyntheticCorpus } from './clusteredVectors.js';

const { values } = parseArgs({
  options: {
    serve: { type: 'boolean', default: false },
    n: { type: 'string', default: '50000' },
    dim: { type: 'string', default: '1024' },
    M: { type: 'string', default: '32' },
    'ef-construction': { type: 'string', default: '200' },
    batch: { type: 'string', default: '64' },
    concurrency: { type: 'string', default: '4' },
    'replica-n': { type: 'string' },
    rate: { type: 'string', default: '2' },
    only: { type: 'string' },
    dir: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const n = Number(values.n);
const dim = Number(values.dim);
const clusters = Math.max(10, Math.round(n / 100));
const M = Number(values.M);
const efConstruction = Number(values['ef-construction']);
const batch = Number(values.batch);
const concurrency = Number(values.concurrency);
const replicaN = Number(values['replica-n'] ?? Math.min(n, 6000));
const rate = Number(values.rate);
const MODEL = 'bench-clustered';
const now = () => Number(process.hrtime.bigint()) / 1e6;

/**
 * Server role: precomputes the base64 of vectors 0..n-1 and answers POST /v1/embeddings by looking each
 * input's `#<i>` up; with `--rate`, responses leave at most that many a second (queued, never refused).
 */
async function serve(): Promise<void> {
  const vectors = new ClusteredVectors(dim, clusters, 1, 'flat');
  const encoded: string[] = [];
  for (let i = 0; i < n; i++) {
    const v = vectors.vector(i);
    encoded.push(Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64'));
  }
  const limit = Number(values.rate);
  const gap = limit > 0 ? 1000 / limit : 0;
  let nextSlot = 0;
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { input: string | string[]; encoding_format?: string };
      const inputs = typeof body.input === 'string' ? [body.input] : body.input;
      const data = inputs.map((text, index) => {
        // Documents are `title\ntext`, the text starting `#<i> `; anything else (the dimension probe) gets vector 0.
        const match = /(?:^|\n)#(\d+) /.exec(text);
        const b64 = encoded[match ? Number(match[1]) : 0]!;
        return { object: 'embedding', index, embedding: body.encoding_format === 'float' ? Array.from(new Float32Array(Buffer.from(b64, 'base64').buffer)) : b64 };
      });
      const text = JSON.stringify({ object: 'list', model: MODEL, data, usage: { prompt_tokens: 0, total_tokens: 0 } });
      const send = () => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      };
      if (gap === 0) return send();
      const at = Math.max(Date.now(), nextSlot);
      nextSlot = at + gap;
      setTimeout(send, at - Date.now());
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    process.stdout.write(`listening http://127.0.0.1:${port}/v1\n`);
  });
}

interface Server {
  url: string;
  process: ChildProcess;
}

async function startServer(count: number, limit: number): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve', '--n', String(count), '--dim', String(dim), '--rate', String(limit)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`embedding server exited with code ${code}`)));
    lines.on('line', (line) => {
      if (line.startsWith('listening ')) resolve(line.slice('listening '.length));
    });
  });
  return { url, process: child };
}

function stop(server: Server): void {
  server.process.kill();
}

const root = values.dir ?? join(tmpdir(), `hisrag-bench-index-build-${n}`);
const hisragBin = fileURLToPath(new URL('../bin/hisrag.mjs', import.meta.url));

interface Built {
  wallSeconds: number;
  timings: Record<string, number>;
}

/** `hisrag index build` in its own process, as a user runs it. */
async function hisragBuild(corpusDir: string, out: string, urls: string[]): Promise<Built> {
  rmSync(out, { recursive: true, force: true });
  const spec = { name: 'openai', baseURL: urls.length === 1 ? urls[0] : urls, model: MODEL, dimension: dim, batchSize: batch, maxConcurrency: concurrency };
  const args = [hisragBin, 'index', 'build', '--corpus', corpusDir, '--retriever', 'hnsw', '--out', out, '--embedder-spec', JSON.stringify(spec), '--M', String(M), '--ef-construction', String(efConstruction), '--batch-size', String(batch)];
  const started = now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, CI: '1' } });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const wallSeconds = (now() - started) / 1000;
  if (code !== 0) throw new Error(`hisrag index build exited with code ${code}`);
  const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')) as { timings: Record<string, number> };
  return { wallSeconds, timings: manifest.timings };
}

/** Raw hnswlib-node: addPoint over the same vectors (prepared as arrays a block at a time; only addPoint is timed). */
function rawHnswlib(count: number): number {
  const vectors = new ClusteredVectors(dim, clusters, 1, 'flat');
  const graph = new hnswlib.HierarchicalNSW('ip', dim);
  graph.initIndex({ maxElements: count, m: M, efConstruction, randomSeed: 100 });
  let seconds = 0;
  const BLOCK = 1000;
  for (let start = 0; start < count; start += BLOCK) {
    const block = Array.from({ length: Math.min(BLOCK, count - start) }, (_, i) => Array.from(vectors.vector(start + i)));
    const t = now();
    block.forEach((vector, i) => graph.addPoint(vector, start + i));
    seconds += (now() - t) / 1000;
  }
  return seconds;
}

const fmt = (x: number, digits = 0) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const load = () => loadavg().map((x) => x.toFixed(2)).join(', ');

async function main(): Promise<void> {
  if (values.serve) return serve();
  const corpusDir = join(root, 'corpus');
  rmSync(root, { recursive: true, force: true });
  console.log(`n = ${fmt(n)} × ${dim}-d (${fmt(clusters)} clusters, flat), M ${M}, efConstruction ${efConstruction}, batches of ${batch}, ${concurrency} requests in flight per replica`);
  console.log(`load average at start: ${load()}`);
  try {
    if (values.only !== 'replicas') {
      await writeSyntheticCorpus(corpusDir, n);
      const servers = await Promise.all([startServer(n, 0), startServer(n, 0)]);
      try {
        const rawBefore = rawHnswlib(n);
        console.log(`raw hnswlib-node addPoint: ${fmt(n / rawBefore)} vectors/s (${rawBefore.toFixed(1)} s)  load ${load()}`);
        const built = await hisragBuild(corpusDir, join(root, 'index'), servers.map((s) => s.url));
        console.log(`hisrag index build: ${built.wallSeconds.toFixed(1)} s wall; manifest timings ${JSON.stringify(built.timings)}  load ${load()}`);
        const rawAfter = rawHnswlib(n);
        console.log(`raw hnswlib-node addPoint: ${fmt(n / rawAfter)} vectors/s (${rawAfter.toFixed(1)} s)  load ${load()}`);
        const raw = (rawBefore + rawAfter) / 2;
        const tune = built.timings.tuneSeconds ?? 0;
        console.log('');
        console.log('| n | raw hnswlib-node addPoint | hisrag index build, whole (CLI wall) | without efSearch tuning | ratio, whole | ratio, without tuning |');
        console.log('|---|---|---|---|---|---|');
        console.log(
          `| ${fmt(n)} | ${fmt(n / raw)} vectors/s (${raw.toFixed(1)} s) | ${fmt(n / built.wallSeconds)} vectors/s (${built.wallSeconds.toFixed(1)} s) | ${fmt(n / (built.wallSeconds - tune))} vectors/s (tuning ${tune.toFixed(1)} s) | **${(raw / built.wallSeconds).toFixed(3)}×** | **${(raw / (built.wallSeconds - tune)).toFixed(3)}×** |`,
        );
      } finally {
        servers.forEach(stop);
      }
    }
    if (values.only !== 'graph') {
      const replicaCorpus = join(root, 'corpus-replicas');
      await writeSyntheticCorpus(replicaCorpus, replicaN);
      const servers = await Promise.all([startServer(replicaN, rate), startServer(replicaN, rate)]);
      try {
        const one = await hisragBuild(replicaCorpus, join(root, 'index-one'), [servers[0]!.url]);
        const two = await hisragBuild(replicaCorpus, join(root, 'index-two'), servers.map((s) => s.url));
        const bound = (rate * batch).toFixed(0);
        console.log('');
        console.log(`replicas: ${fmt(replicaN)} chunks; each server answers at most ${rate} requests/s (${bound} chunks/s)  load ${load()}`);
        console.log('| replicas | embed + store + graph (s) | whole build (CLI wall, s) | chunks/s (whole) |');
        console.log('|---|---|---|---|');
        for (const [label, built] of [['1', one], ['2', two]] as const) {
          console.log(`| ${label} | ${(built.timings.storeSeconds ?? 0).toFixed(1)} | ${built.wallSeconds.toFixed(1)} | ${fmt(replicaN / built.wallSeconds)} |`);
        }
        console.log(`speed-up of two replicas over one: **${(one.wallSeconds / two.wallSeconds).toFixed(2)}×** (whole build), ${((one.timings.storeSeconds ?? 0) / (two.timings.storeSeconds ?? 1)).toFixed(2)}× (embed + store + graph)`);
      } finally {
        servers.forEach(stop);
      }
    }
  } finally {
    if (!values.keep) rmSync(root, { recursive: true, force: true });
  }
}

await main();
