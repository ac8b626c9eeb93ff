import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryFixtureModel } from './fixtureModelDir.js';
import { TransformersEmbedder } from '../../src/embedding/transformersEmbedder.js';

describe('TransformersEmbedder with worker threads', () => {
  let fixture: Awaited<ReturnType<typeof temporaryFixtureModel>>;
  beforeAll(async () => (fixture = await temporaryFixtureModel({ dim: 16 })));
  afterAll(async () => fixture.remove());

  it('gives the same vectors, in input order, as the in-thread model', async () => {
    const texts = ['秦始皇统一六国', '汉', '唐太宗贞观之治', '宋', '元明清三朝', '民国', '夏商周'];
    const local = new TransformersEmbedder({ model: fixture.dir, batchSize: 2 });
    const pooled = new TransformersEmbedder({ model: fixture.dir, batchSize: 2, workers: 2 });
    try {
      const [expected, actual] = await Promise.all([local.embedDocuments(texts), pooled.embedDocuments(texts)]);
      actual.forEach((vector, i) => {
        expect(Math.max(...vector.map((x, j) => Math.abs(x - expected[i]![j]!)))).toBeLessThan(1e-5);
      });
      expect((await pooled.identity()).dimension).toBe(16);
    } finally {
      await Promise.all([local.dispose(), pooled.dispose()]);
    }
  });

  it('reports a broken model directory from the workers as a config error', async () => {
    const pooled = new TransformersEmbedder({ model: fixture.root, workers: 1 });
    await expect(pooled.identity()).rejects.toThrow(/config\.json is missing/);
  });
});
