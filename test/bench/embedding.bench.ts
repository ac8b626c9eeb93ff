/**
 * Small, quick embedding benchmarks (vitest bench) on generated models: the bag-of-characters
 * fixture and a small BERT encoder (fp32 vs q8) at 64 tokens per text.
 *   npx vitest bench --run test/bench/embedding.bench.ts
 * Full-size figures (bge-large-zh's shape, 256 tokens, 1 vs 2 threads/workers) come from
 *   node --import tsx scripts/bench-embedding.ts --model models/bge-large-shape
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bench, describe } from 'vitest';
import { generateFixtureModel } from '../../src/embedding/fixture/generateFixtureModel.js';
import { TransformersEmbedder } from '../../src/embedding/transformersEmbedder.js';
import { mulberry32 } from '../../src/models/fixture/seededRandom.js';

const SEQUENCE = 64;
const next = mulberry32(3);
const texts = Array.from({ length: 16 }, () =>
  Array.from({ length: SEQUENCE - 2 }, () => String.fromCodePoint(0x4e00 + Math.floor(next() * 0x5000))).join(''),
);

const root = mkdtempSync(join(tmpdir(), 'hisrag-bench-embedding-'));
const mean = await generateFixtureModel({ outDir: join(root, 'mean'), dim: 64 });
const encoder = await generateFixtureModel({
  outDir: join(root, 'encoder'),
  kind: 'bert',
  dim: 256,
  layers: 4,
  heads: 4,
  intermediate: 1024,
  maxTokens: 128,
});
const embedders = {
  mean: new TransformersEmbedder({ model: mean.dir, threads: 1 }),
  encoderFp32: new TransformersEmbedder({ model: encoder.dir, threads: 1 }),
  encoderQ8: new TransformersEmbedder({ model: encoder.dir, dtype: 'q8', threads: 1 }),
};
for (const embedder of Object.values(embedders)) await embedder.embedDocuments(texts.slice(0, 1)); // load

describe(`embed 16 texts × ${SEQUENCE} tokens, 1 thread`, () => {
  bench('bag-of-characters fixture (dim 64)', async () => void (await embedders.mean.embedDocuments(texts)), { iterations: 10 });
  bench('BERT 4 × 256 fp32', async () => void (await embedders.encoderFp32.embedDocuments(texts)), { iterations: 5 });
  bench('BERT 4 × 256 q8', async () => void (await embedders.encoderQ8.embedDocuments(texts)), { iterations: 5 });
});
