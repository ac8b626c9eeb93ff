/**
 * Recall of a built HNSW index against exact search, on real embeddings: for each efSearch, queries/s
 * and recall@k of the graph's top k against brute force over the same stored vectors.
 *
 *   node --import tsx scripts/bench-index-recall.ts --index indexes/poems-hnsw [--queries 200] [--ef 64,128,256,512,1536] [--k 10,100]
 *
 * Queries are the first sentence (up to 。！？) of chunks drawn with a seed, embedded as queries (with
 * the index's query prefix), so they resemble short questions about a passage, not copies of it.
 */
import { parseArgs } from 'node:util';
import { openIndex } from '../src/index/openIndex.js';

const { values } = parseArgs({
  options: {
    index: { type: 'string' },
    queries: { type: 'string', default: '200' },
    ef: { type: 'string', default: '64,128,256,512,1024,1536' },
    k: { type: 'string', default: '10,100' },
    seed: { type: 'string', default: '7' },
  },
});
if (!values.index) throw new Error('--index <dir> is required');

const index = await openIndex(values.index);
const total = index.store.countVectors();
const queryCount = Math.min(Number(values.queries), total);
let state = Number(values.seed) >>> 0;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = Math.imul(state ^ (state >>> 15), state | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const texts: string[] = [];
while (texts.length < queryCount) {
  const chunk = index.store.byLabel(Math.floor(random() * total));
  const first = chunk?.text.split(/(?<=[。！？!?])/)[0]?.trim();
  if (first) texts.push(first);
}
const embedder = await index.embedder();
const started = Date.now();
const queries = await Promise.all(texts.map((t) => embedder.embedQuery(t)));
process.stdout.write(`${values.index}: ${total} vectors, ${queryCount} queries embedded in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

const depths = values.k!.split(',').map(Number);
const maxK = Math.max(...depths);
const exact = index.exact();
const exactStarted = Date.now();
const truthHits = await exact.nearest(queries, maxK);
const truth = truthHits.map((hits) => hits.map((h) => h.label));
process.stdout.write(`exact search: ${(queryCount / ((Date.now() - exactStarted) / 1000)).toFixed(1)} queries/s at k=${maxK}\n`);

const graph = index.hnsw();
for (const ef of values.ef!.split(',').map(Number)) {
  graph.setEf(Math.max(ef, maxK));
  const parts: string[] = [`efSearch ${String(ef).padStart(5)}`];
  for (const k of depths) {
    let hits = 0;
    let tieHits = 0;
    const t0 = Date.now();
    for (let q = 0; q < queries.length; q++) {
      const { neighbors, distances } = graph.searchKnn(queries[q]!, k);
      const gold = new Set(truth[q]!.slice(0, k));
      // Tie-aware: a neighbour as similar as the exact k-th one is as good an answer (bag-of-characters
      // vectors of short poems tie often, and then which tied item is "the" k-th is arbitrary).
      const kth = truthHits[q]![k - 1]?.score ?? -Infinity;
      neighbors.forEach((label, i) => {
        if (gold.has(label)) hits++;
        if (gold.has(label) || 1 - distances[i]! >= kth - 1e-6) tieHits++;
      });
    }
    const qps = queries.length / Math.max(1e-3, (Date.now() - t0) / 1000);
    parts.push(`k=${k}: recall ${(hits / (queries.length * k)).toFixed(4)} (tie-aware ${(tieHits / (queries.length * k)).toFixed(4)}), ${qps.toFixed(0)} q/s`);
  }
  process.stdout.write(parts.join('  ') + '\n');
}
await embedder.dispose?.();
await index.close();
