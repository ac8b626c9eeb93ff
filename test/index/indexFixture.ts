import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { createEmbedder } from '../../src/embedding/registry.js';
import type { TextEmbedder } from '../../src/embedding/types.js';
import { buildIndex } from '../../src/index/buildIndex.js';
import type { BuildIndexOptions } from '../../src/index/buildOptions.js';
import { readIndexManifest } from '../../src/runFiles/indexManifest.js';
import { CountingEmbedder } from './countingEmbedder.js';
import { fixtureModel, writeTestCorpus } from './testCorpus.js';

/** What the index tests build from: a temporary directory, the test corpus in it, and the generated embedding model. */
export interface IndexFixture {
  root: string;
  corpusDir: string;
  spec: { name: string; model: string };
  embedder: TextEmbedder;
}

/**
 * Sets up one fixture for the enclosing describe (beforeAll: directory, corpus, model, one embedder
 * on it, shared by its tests, as generating the model is the slow part) and removes it afterwards.
 * `receive` gets it once it is ready, so that a file's tests keep their own variable names.
 */
export function indexFixture(prefix: string, receive: (fixture: IndexFixture) => void): void {
  let fixture: IndexFixture | undefined;
  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), prefix));
    const corpusDir = await writeTestCorpus(join(root, 'corpus'));
    const spec = { name: 'transformers', model: await fixtureModel(join(root, 'model')) };
    fixture = { root, corpusDir, spec, embedder: await createEmbedder(spec) };
    receive(fixture);
  });
  afterAll(async () => {
    if (!fixture) return;
    await fixture.embedder.dispose();
    rmSync(fixture.root, { recursive: true, force: true });
  });
}

/**
 * Runs a build and aborts it once `abortAt` chunks are stored: it must fail and leave the index's
 * manifest incomplete. Returns the counting wrapper of `embedderInstance` it embedded with, so that
 * a test can show what the resumed build did not embed again.
 */
export async function interruptedBuild(options: BuildIndexOptions & { embedderInstance: TextEmbedder }, abortAt: number): Promise<CountingEmbedder> {
  const controller = new AbortController();
  const counting = new CountingEmbedder(options.embedderInstance);
  await expect(
    buildIndex({
      ...options,
      embedderInstance: counting,
      signal: controller.signal,
      onBatchStored: (stored) => {
        if (stored >= abortAt) controller.abort();
      },
    }),
  ).rejects.toThrow();
  expect(readIndexManifest(options.out)?.complete).toBe(false);
  return counting;
}
