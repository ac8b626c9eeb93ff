/**
 * Embedding and reranking throughput of this checkout against another (`--base`, e.g. a `git
 * worktree` of main) in one process: each tree's `TransformersEmbedder` and `CrossEncoderReranker`
 * on the same generated models and inputs, timed alternately round after round, so both see the
 * same machine load; the median of the per-round ratios (this ÷ base) is what holds up on a shared
 * machine. For changes to the model layer (`src/models/`): same or better throughput.
 *
 *   node --import tsx scripts/bench-models-ab.ts --base ../hisrag-main --embedder models/emb-6x384 --reranker models/rr-6x384 [--rounds 5]
 *
 * Models, e.g. (6 layers × 384, bge's vocabulary; ~115 MB each):
 *   node bin/hisrag.mjs model fixture --out models/emb-6x384 --encoder --layers 6 --hidden 384 --heads 6 --vocab 21128
 *   node bin/hisrag.mjs model fixture --out models/rr-6x384 --reranker --encoder --layers 6 --hidden 384 --heads 6 --vocab 21128
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { mulberry32 } from '../src/models/fixture/seededRandom.js';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    embedder: { type: 'string' },
    reranker: { type: 'string' },
    rounds: { type: 'string', default: '5' },
  },
});
if (!values.base || !values.embedder || !values.reranker) throw new Error('--base <checkout>, --embedder <dir> and --reranker <dir> are required');
const trees = [resolve(values.base), fileURLToPath(new URL('..', import.meta.url))];
const rounds = Number(values.rounds);
const [embedderModel, rerankerModel] = [resolve(values.embedder), resolve(values.reranker)];

const text = (next: () => number, n: number) => Array.from({ length: n }, () => String.fromCodePoint(0x4e00 + Math.floor(next() * 0x5000))).join('');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

interface Variant {
  units: number;
  warm(): Promise<unknown>;
  run(): Promise<unknown>;
  close(): Promise<void>;
}

const summary: string[] = [];
async function compare(name: string, make: (tree: string) => Promise<Variant>): Promise<void> {
  const variants = [await make(trees[0]!), await make(trees[1]!)];
  for (const variant of variants) await variant.warm();
  const rates: number[][] = [[], []];
  for (let round = 0; round < rounds; round++) {
    for (const [i, variant] of variants.entries()) {
      const start = performance.now();
      await variant.run();
      rates[i]!.push(variant.units / ((performance.now() - start) / 1000));
    }
  }
  for (const variant of variants) await variant.close();
  const ratios = rates[1]!.map((rate, round) => rate / rates[0]![round]!);
  const line =
    `${name.padEnd(30)} base ${median(rates[0]!).toFixed(2).padStart(7)}/s  this ${median(rates[1]!).toFixed(2).padStart(7)}/s  ` +
    `this ÷ base per round ${ratios.map((r) => r.toFixed(2)).join(' ')} → median ${median(ratios).toFixed(2)}×`;
  summary.push(line);
  process.stdout.write(`${line}\n`);
}

const documents = (() => {
  const next = mulberry32(7);
  return Array.from({ length: 32 }, () => text(next, 254)); // 256 tokens with [CLS] and [SEP]
})();
for (const dtype of ['q8', 'fp32'] as const) {
  for (const [setup, workers] of [['threads1', 0], ['workers2', 2]] as const) {
    await compare(`embedding ${dtype} ${setup} (seq/s)`, async (tree) => {
      const { TransformersEmbedder } = await import(`${tree}/src/embedding/transformersEmbedder.ts`);
      const embedder = new TransformersEmbedder({ model: embedderModel, dtype, maxTokens: 256, threads: 1, workers, batchSize: workers ? 16 : 32 });
      return {
        units: documents.length,
        warm: () => embedder.embedDocuments(documents.slice(0, Math.max(1, workers))),
        run: () => embedder.embedDocuments(documents),
        close: () => embedder.dispose(),
      };
    });
  }
}

const next = mulberry32(11);
const query = text(next, 16);
const passages = Array.from({ length: 48 }, () => text(next, 40 + Math.floor(next() * 361)));
for (const dtype of ['q8', 'fp32'] as const) {
  for (const [setup, workers] of [['in process', 0], ['workers2', 2]] as const) {
    await compare(`rerank ${dtype} ${setup} (pairs/s)`, async (tree) => {
      const { CrossEncoderReranker } = await import(`${tree}/src/rerank/crossEncoderReranker.ts`);
      const reranker = new CrossEncoderReranker({ model: rerankerModel, dtype, batchSize: 16, cacheSize: 0, workers });
      return {
        units: passages.length,
        warm: () => reranker.rerank(query, passages.slice(0, 2)),
        run: () => reranker.rerank(query, passages),
        close: () => reranker.close(),
      };
    });
  }
}
process.stdout.write(`\nbase ${trees[0]}, this ${trees[1]}; ${rounds} rounds\n${summary.join('\n')}\n`);
