/**
 * Reranking throughput, (query, passage) pairs per second, on a generated cross-encoder:
 * hisrag's `cross-encoder` reranker (pairs encoded with passage-side truncation, grouped by
 * token length into batches) against a plain transformers.js `text-classification` pipeline on
 * the same model and the same pairs (each pair given as `query[SEP]passage`, which tokenises to
 * the same ids as the pair, in batches of the same size in input order), fp32 and q8. Both
 * variants stay loaded and are timed alternately for several rounds; the median of the
 * per-round ratios is what holds up on a shared machine.
 *
 *   node --import tsx scripts/bench-rerank.ts --model models/bge-reranker-large-shape [--pairs 32] [--batch 16] [--dtypes fp32,q8] [--rounds 3]
 *
 * Generate the model first (bge-reranker-large's encoder shape, ~1.3 GB + 0.3 GB quantised):
 *   node bin/hisrag.mjs model fixture --out models/bge-reranker-large-shape --reranker --encoder --layers 24 --hidden 1024 --heads 16 --intermediate 4096 --vocab 21128
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pipeline, type TextClassificationPipeline } from '@huggingface/transformers';
import { CrossEncoderReranker } from '../src/rerank/crossEncoderReranker.js';
import { mulberry32 } from '../src/models/fixture/seededRandom.js';

const { values } = parseArgs({
  options: {
    model: { type: 'string' },
    pairs: { type: 'string', default: '32' },
    batch: { type: 'string', default: '16' },
    dtypes: { type: 'string', default: 'fp32,q8' },
    rounds: { type: 'string', default: '3' },
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

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const { query, passages } = inputs(pairs, 11);
const warm = inputs(2, 12);
const rounds = Number(values.rounds);
const summary: string[] = [];
for (const dtype of values.dtypes.split(',') as Array<'fp32' | 'q8'>) {
  // Both loaded at once and timed alternately, round after round: on a shared machine both see
  // the same contention, and the per-round ratio is what carries over.
  const variants = [await hisragVariant(dtype), await pipelineVariant(dtype)];
  for (const variant of variants) await variant.run(warm.query, warm.passages); // warm up
  const rates: number[][] = variants.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, variant] of variants.entries()) {
      const start = performance.now();
      await variant.run(query, passages);
      rates[i]!.push(pairs / ((performance.now() - start) / 1000));
      process.stdout.write(`round ${round + 1}: ${variant.name.padEnd(42)} ${rates[i]!.at(-1)!.toFixed(2).padStart(7)} pairs/s\n`);
    }
  }
  for (const variant of variants) await variant.close();
  const ratios = rates[0]!.map((rate, round) => rate / rates[1]![round]!);
  summary.push(
    `${dtype}: hisrag ${median(rates[0]!).toFixed(2)} pairs/s, plain pipeline ${median(rates[1]!).toFixed(2)} pairs/s (medians); ` +
      `ratio per round ${ratios.map((r) => r.toFixed(2)).join(', ')} → median ${median(ratios).toFixed(2)}×`,
  );
}
process.stdout.write(`\n${pairs} pairs (query 16 characters, passages ${minChars}–${maxChars} characters, one token each), batch ${batchSize}, ${rounds} round(s), model ${values.model}\n`);
for (const line of summary) process.stdout.write(`${line}\n`);
