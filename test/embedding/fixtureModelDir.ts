import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateFixtureModel, type FixtureModelOptions } from '../../src/embedding/fixture/generateFixtureModel.js';

/** Generates a small fixture model into a fresh temp dir; `remove` deletes it. */
export async function temporaryFixtureModel(options: Omit<FixtureModelOptions, 'outDir'> = {}) {
  const root = await mkdtemp(join(tmpdir(), 'hisrag-embedding-'));
  const info = await generateFixtureModel({ outDir: join(root, 'model'), dim: 32, ...options });
  return { ...info, root, remove: () => rm(root, { recursive: true, force: true }) };
}
