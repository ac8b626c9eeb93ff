/**
 * hisrag's HNSW query against raw hnswlib-node (issue 49), side by side in one process: the same index
 * (built by `scripts/bench-scale.ts --keep --dir D`, hnswlib graph), the same query vectors, the same
 * efSearch (the index's tuned one), so the same recall — checked against bench-scale's exact top-k.
 *
 *   node --import tsx scripts/bench-hnsw-query.ts --dir D [--k 100] [--queries 200] [--rounds 9]
 *        [--structure flat|topics] [--before <checkout>]… [--only raw|hisrag|graph|<checkout's name>]
 *
 * raw: `HierarchicalNSW.searchKnn` on hisrag's hnsw.bin, one query at a time, number[] vectors.
 * hisrag: the `hnsw` retriever as the CLI creates it (createRetriever), `retrieve({ text }, k)` one query
 * at a time, chunk texts included; the embedder looks its query vectors up (a model's cost is not measured).
 * graph: hisrag's graph search alone (the index's GraphIndex.search, no chunk read), to split the difference.
 * --before D (repeatable; the side is named after D's folder): the same retriever from another checkout's
 * src/ (`git archive <commit> src package.json tsconfig.json | tar -x -C D`, node_modules linked), to
 * compare changes in the same run. The sides take turns query by query (order rotated each round), so
 * a shared machine's load swings hit them alike; printed per side: the median over rounds of wall and
 * CPU ms per query (this process's user + system time: the time-slicing of a loaded machine left out),
 * the median of the per-round ratios to raw, recall@k.
 * `--only` runs one side alone, for `node --cpu-prof`.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import hnswlib from 'hnswlib-node';
import { ClusteredVectors, SyntheticEmbedder } from './clusteredVectors.js';
import { openIndex } from '../src/index/openIndex.js';
import type { Retriever } from '../src/retrieval/types.js';

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    k: { type: 'string', default: '100' },
    queries: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '9' },
    structure: { type: 'string', default: 'flat' },
    before: { type: 'string', multiple: true },
    only: { type: 'string' },
  },
});
if (!values.dir) throw new Error('--dir: the directory of a `bench-scale.ts --keep` run');
const indexDir = join(values.dir, 'index');
const k = Number(values.k);
const queryCount = Number(values.queries);
const manifest = JSON.parse(readFileSync(join(indexDir, 'manifest.json'), 'utf8'));
const dim: number = manifest.embedder.identity.dimension;
const efSearch: number = manifest.hnsw.efSearch;
// The synthetic embedder's fingerprint is synthetic:<seed>:<clusters>:<dimension>.
const [, seed, clusters] = (manifest.embedder.fingerprint as string).split(':').map(Number);
const vectors = new ClusteredVectors(dim, clusters!, seed, values.structure as 'flat' | 'topics');
const queries = Array.from({ length: queryCount }, (_, j) => Array.from(vectors.query(j)));
const texts = queries.map((_, j) => `?${j}`);
const truth = JSON.parse(readFileSync(join(values.dir, 'truth.json'), 'utf8')) as number[][];
const recall = (found: number[][]) =>
  found.reduce((sum, labels, j) => sum + labels.filter((l) => truth[j]!.slice(0, k).includes(l)).length / k, 0) / found.length;

type Side = (j: number) => Promise<number[]> | number[];

async function hisragSide(root: string): Promise<Side> {
  const { createRetrieverContext } = await import(join(root, 'src/retrieval/registry.ts'));
  const { createRetriever } = await import(join(root, 'src/retrieval/createRetriever.ts'));
  const embedder = new SyntheticEmbedder(vectors);
  embedder.prepareQueries(queryCount);
  const retriever: Retriever = await createRetriever({ name: 'hnsw', index: indexDir }, createRetrieverContext({ embedder }));
  return async (j) => (await retriever.retrieve({ text: texts[j]! }, k)).map((c) => Number(c.id.slice(4)));
}

const raw = new hnswlib.HierarchicalNSW('ip', dim);
raw.readIndexSync(join(indexDir, 'hnsw.bin'));
raw.setEf(Math.max(efSearch, k));
const sides: Record<string, Side> = {
  raw: (j) => raw.searchKnn(queries[j]!, k).neighbors,
  hisrag: await hisragSide(resolve('.')),
};
const graph = await (await openIndex(indexDir)).graph();
sides.graph = (j) => graph.search([queries[j]!], k, efSearch)[0]!.map((hit) => hit.label);
for (const dir of values.before ?? []) sides[basename(dir)] = await hisragSide(resolve(dir));
const names = values.only ? [values.only] : Object.keys(sides);

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`bench-hnsw-query: ${manifest.counts.chunks} chunks × ${dim}-d, efSearch ${efSearch}, k ${k}, ${queryCount} queries, ${values.rounds} rounds; load average ${load()}`);
const wall: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
const cpu: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
const recalls: Record<string, number> = {};
for (let round = -1; round < Number(values.rounds); round++) {
  const found: Record<string, number[][]> = Object.fromEntries(names.map((name) => [name, []]));
  const sum: Record<string, { wall: number; cpu: number }> = Object.fromEntries(names.map((name) => [name, { wall: 0, cpu: 0 }]));
  for (let j = 0; j < queryCount; j++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + 1 + j + i) % names.length]!;
      const c = process.cpuUsage();
      const t = performance.now();
      found[name]!.push(await sides[name]!(j));
      sum[name]!.wall += performance.now() - t;
      const used = process.cpuUsage(c);
      sum[name]!.cpu += (used.user + used.system) / 1000;
    }
  }
  if (round < 0) continue; // warm-up: graph pages, SQLite pages, JIT
  for (const name of names) {
    wall[name]!.push(sum[name]!.wall / queryCount);
    cpu[name]!.push(sum[name]!.cpu / queryCount);
    recalls[name] = recall(found[name]!);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ratio = (of: Record<string, number[]>, name: string) => (of.raw && name !== 'raw' ? ` (÷ raw ${median(of[name]!.map((x, i) => x / of.raw![i]!)).toFixed(3)}×)` : '');
for (const name of names) {
  console.log(
    `${name.padEnd(12)} wall ${median(wall[name]!).toFixed(3)} ms/query${ratio(wall, name)}, CPU ${median(cpu[name]!).toFixed(3)}${ratio(cpu, name)}, recall@${k} ${recalls[name]!.toFixed(4)}`,
  );
}
console.log(`load average at the end ${load()}`);
