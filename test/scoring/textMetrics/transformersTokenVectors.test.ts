import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFixtureModel } from '../../../src/embedding/fixture/generateFixtureModel.js';
import { bertScore } from '../../../src/scoring/textMetrics/bertScore.js';
import { loadTransformersTokenVectors, type LoadedTokenVectors } from '../../../src/scoring/textMetrics/transformersTokenVectors.js';

describe('BERTScore over a transformers.js encoder (generated fixture model)', () => {
  let root: string;
  let loaded: LoadedTokenVectors;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'hisrag-bertscore-'));
    const info = await generateFixtureModel({ outDir: join(root, 'model'), dim: 16, seed: 3 });
    loaded = await loadTransformersTokenVectors({ model: info.dir });
  }, 60_000);

  afterAll(async () => {
    await loaded?.dispose();
    await rm(root, { recursive: true, force: true });
  });

  it('returns one vector per character token, without [CLS] and [SEP]', async () => {
    const vectors = await loaded.tokenVectors('科举制度');
    expect(vectors).toHaveLength(4);
    expect(vectors[0]).toHaveLength(16);
  });

  it('returns no vectors for an empty text', async () => {
    expect(await loaded.tokenVectors('  ')).toEqual([]);
  });

  it('scores an identical text 1 and a text sharing characters above an unrelated one', async () => {
    const same = await bertScore('科举制度始于隋朝', '科举制度始于隋朝', loaded.tokenVectors);
    const near = await bertScore('科举制度始于唐朝', '科举制度始于隋朝', loaded.tokenVectors);
    const far = await bertScore('江南水乡风景秀丽', '科举制度始于隋朝', loaded.tokenVectors);
    expect(same.f1).toBeCloseTo(1, 5);
    expect(near.f1).toBeGreaterThan(far.f1);
  });
});
