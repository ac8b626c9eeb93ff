import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateRerankerFixture, type RerankerFixtureOptions } from '../../src/rerank/fixture/generateRerankerFixture.js';

/** Generates a small fixture cross-encoder into a fresh temp dir; `remove` deletes it. */
export async function temporaryRerankerFixture(options: Omit<RerankerFixtureOptions, 'outDir'> = {}) {
  const root = await mkdtemp(join(tmpdir(), 'hisrag-reranker-'));
  const info = await generateRerankerFixture({ outDir: join(root, 'model'), dim: 32, ...options });
  return { ...info, root, remove: () => rm(root, { recursive: true, force: true }) };
}
