/**
 * Reranking throughput, (query, passage) pairs per second, on a generated cross-encoder:
 * hisrag's `cross-encoder` reranker (pairs encoded with passage-side truncation, grouped by
 * token length into batches) against a plain transformers.js `text-classification` pipeline on
 * the same model and the same pairs (each pair given as `query[SEP]passage`, which tokenises to
 * the same ids as the pair, in batches of the same size in input order), fp32 and q8. The
 * variants alternate within one run, so the ratios hold up on a shared machine.
 *
 *   node --import tsx scripts/bench-rerank.ts --model models/bge-reranker-large-shape [--pairs 32] [--batch 16] [--dtypes fp32,q8] [--rounds 1]
 *
 * Generate the model first (bge-reranker-large's encoder shape, ~1.3 GB + 0.3 GB quantised):
 *   node bin/hisrag.mjs model fixture --out models/bge-reranker-large-shape --reranker --encoder --layers 24 --hidden 1024 --heads 16 --intermediate 4096 --vocab 21128
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pipeline, type TextClassificationPipeline } from '@huggingface/transformers';
import { CrossEncoderReranker } from '../src/rerank/crossEncoderReranker.js';
import { mulberry32 } from '../src/embedding/fixture/seededRandom.js';

const { values } = parseArgs({
  options: {
    model: { type: 'string' },
    pairs: { type: 'string', default: '32' },
    batch: { type: 'string', default: '16' },
    dtypes: { type: 'string', default: 'fp32,q8' },
    rounds: { type: 'string', default: '1' },
    minChars: { type: 'string', default: '40' },
    maxChars: { type: 'string', default: '400' },
  },
});
if (!values.model) throw new Error('--model <dir> is required');
const pairs = Number(values.pairs);
const batchSize = Number(values.batch);
const [minChars, maxChars] = [Number(values.minChars), Number(values.maxChars)];

/** One query and `n` passages of seeded random ideographs (one token each), lengths spread over [minChars, maxChars]. */
function inputs(n: number, seed: number): { query: string; passages: string[] } {
  const next = mulberry32(seed);
  const text = (length: number) => Array.from({ length }, () => String.fromCodePoint(0x4e00 + Math.floor(next() * 0x5000))).join('');
  return { query: text(16), passages: Array.from({ length: n }, () => text(minChars + Math.floor(next() * (maxChars - minChars + 1)))) };
}

interface Variant {
  name: string;
  run(query: string, passages: string[]): Promise<unknown>;
  close(): Promise<void>;
}

async function hisragVariant(dtype: 'fp32' | 'q8'): Promise<Variant> {
  const reranker = new CrossEncoderReranker({ model: resolve(values.model!), dtype, batchSize, cacheSize: 0 });
  return { name: `hisrag cross-encoder ${dtype}`, run: (q, p) => reranker.rerank(q, p), close: () => reranker.close() };
}

async function pipelineVariant(dtype: 'fp32' | 'q8'): Promise<Variant> {
  const classifier = (await pipeline('text-classification', resolve(values.model!), { dtype, local_files_only: true })) as TextClassificationPipeline;
  return {
    name: `transformers.js text-classification ${dtype}`,
    async run(query, passages) {
      const texts = passages.map((p) => `${query}[SEP]${p}`);
      for (let start = 0; start < texts.length; start += batchSize) await classifier(texts.slice(start, start + batchSize));
    },
    close: () => classifier.dispose(),
  };
}

const measured = new Map<string, number[]>();
const { query, passages } = inputs(pairs, 11);
const warm = inputs(2, 12);
for (let round = 0; round < Number(values.rounds); round++) {
  for (const dtype of values.dtypes.split(',') as Array<'fp32' | 'q8'>) {
    for (const make of [hisragVariant, pipelineVariant]) {
      const variant = await make(dtype);
      await variant.run(warm.query, warm.passages); // load + warm up
      const start = performance.now();
      await variant.run(query, passages);
      const rate = pairs / ((performance.now() - start) / 1000);
      await variant.close();
      measured.set(variant.name, [...(measured.get(variant.name) ?? []), rate]);
      process.stdout.write(`round ${round + 1}: ${variant.name.padEnd(42)} ${rate.toFixed(2).padStart(7)} pairs/s\n`);
    }
  }
}
process.stdout.write(`\n${pairs} pairs (query 16 characters, passages ${minChars}–${maxChars} characters, one token each), batch ${batchSize}, model ${values.model}; best of ${values.rounds} round(s)\n`);
const best = (name: string) => Math.max(...(measured.get(name) ?? [NaN]));
for (const dtype of values.dtypes.split(',')) {
  const ours = best(`hisrag cross-encoder ${dtype}`);
  const plain = best(`transformers.js text-classification ${dtype}`);
  process.stdout.write(`${dtype}: hisrag ${ours.toFixed(2)} pairs/s, plain pipeline ${plain.toFixed(2)} pairs/s, ratio ${(ours / plain).toFixed(2)}×\n`);
}
