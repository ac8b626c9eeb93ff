/**
 * Embedding throughput at a fixed sequence length on a generated model: sequences/s and
 * tokens/s for fp32 and q8, 1 and 2 onnxruntime threads, and 2 worker processes.
 *
 *   node --import tsx scripts/bench-embedding.ts --model models/bge-large-shape [--seq 256] [--count 8]
 *     [--dtypes fp32,q8] [--setups threads1,threads2,workers2]
 *
 * Generate the model first, e.g. (bge-large-zh's shape, ~1.3 GB + 0.3 GB quantised):
 *   node bin/hisrag.mjs model fixture --out models/bge-large-shape --encoder --layers 24 --hidden 1024 --heads 16 --intermediate 4096 --vocab 21128
 */
import { parseArgs } from 'node:util';
import { TransformersEmbedder } from '../src/embedding/transformersEmbedder.js';
import { mulberry32 } from '../src/models/fixture/seededRandom.js';

const { values } = parseArgs({
  options: {
    model: { type: 'string' },
    seq: { type: 'string', default: '256' },
    count: { type: 'string', default: '8' },
    dtypes: { type: 'string', default: 'fp32,q8' },
    setups: { type: 'string', default: 'threads1,threads2,workers2' },
  },
});
if (!values.model) throw new Error('--model <dir> is required');
const seq = Number(values.seq);
const count = Number(values.count);

/** Texts of exactly `seq` tokens: seq − 2 random common ideographs (one token each) + [CLS] [SEP]. */
function texts(n: number): string[] {
  const next = mulberry32(7);
  return Array.from({ length: n }, () =>
    Array.from({ length: seq - 2 }, () => String.fromCodePoint(0x4e00 + Math.floor(next() * 0x5000))).join(''),
  );
}

const setups: Record<string, { threads: number; workers: number }> = {
  threads1: { threads: 1, workers: 0 },
  threads2: { threads: 2, workers: 0 },
  workers2: { threads: 1, workers: 2 },
};

const rows: string[] = [];
for (const dtype of values.dtypes.split(',') as Array<'fp32' | 'q8'>) {
  for (const name of values.setups.split(',')) {
    const setup = setups[name];
    if (!setup) throw new Error(`unknown setup ${name} (known: ${Object.keys(setups).join(', ')})`);
    const embedder = new TransformersEmbedder({
      model: values.model,
      dtype,
      maxTokens: seq,
      ...setup,
      batchSize: Math.ceil(count / Math.max(1, setup.workers)),
    });
    const loadStart = performance.now();
    await embedder.embedDocuments(texts(Math.max(1, setup.workers))); // load + warm up every instance
    const loadSeconds = (performance.now() - loadStart) / 1000;
    const batch = texts(count);
    const tokens = (await embedder.countTokens(batch)).reduce((a, b) => a + b, 0);
    const start = performance.now();
    await embedder.embedDocuments(batch);
    const seconds = (performance.now() - start) / 1000;
    await embedder.dispose();
    const row = `${dtype.padEnd(5)} ${name.padEnd(9)} ${(count / seconds).toFixed(2).padStart(8)} seq/s ${(tokens / seconds).toFixed(0).padStart(7)} tokens/s  (${count} × ${seq} tokens in ${seconds.toFixed(2)} s; load+warm-up ${loadSeconds.toFixed(1)} s)`;
    rows.push(row);
    process.stdout.write(`${row}\n`);
  }
}
process.stdout.write(`\nmodel ${values.model}, sequence length ${seq}, ${count} sequences per measurement\n`);
