import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryFixtureModel } from './fixtureModelDir.js';
import { TransformersEmbedder } from '../../src/embedding/transformersEmbedder.js';
import { CachedEmbedder } from '../../src/embedding/cachedEmbedder.js';
import { createEmbedder } from '../../src/embedding/registry.js';

describe('embedding cache', () => {
  let fixture: Awaited<ReturnType<typeof temporaryFixtureModel>>;
  let other: Awaited<ReturnType<typeof temporaryFixtureModel>>;
  beforeAll(async () => {
    [fixture, other] = await Promise.all([temporaryFixtureModel({ dim: 16 }), temporaryFixtureModel({ dim: 16, seed: 9 })]);
  });
  afterAll(async () => Promise.all([fixture.remove(), other.remove()]));

  const texts = ['秦始皇', '汉武帝', '唐太宗', '秦始皇'];
  const cached = (model: string, cacheFile: string, lines: string[] = []) =>
    new CachedEmbedder(new TransformersEmbedder({ model }), cacheFile, (line) => lines.push(line));

  it('embeds nothing twice across runs and gives the same vectors', async () => {
    const cacheFile = join(fixture.root, 'first.sqlite');
    const first = cached(fixture.dir, cacheFile);
    const vectors = await first.embedDocuments(texts);
    expect(first.stats).toEqual({ hits: 0, misses: 3 });
    await first.dispose();

    const lines: string[] = [];
    const second = cached(fixture.dir, cacheFile, lines);
    expect(await second.embedDocuments(texts)).toEqual(vectors);
    expect(second.stats).toEqual({ hits: 4, misses: 0 });
    await second.dispose();
    expect(lines).toEqual([`embedding cache ${cacheFile}: 4 hits, 0 embedded`]);
  });

  it('caches queries under their prefixed text', async () => {
    const cacheFile = join(fixture.root, 'queries.sqlite');
    const first = cached(fixture.dir, cacheFile);
    const vector = await first.embedQuery('汉武帝');
    await first.dispose();
    const second = cached(fixture.dir, cacheFile);
    expect(await second.embedQuery('汉武帝')).toEqual(vector);
    await second.embedDocuments(['汉武帝']);
    expect(second.stats).toEqual({ hits: 1, misses: 1 });
    await second.dispose();
  });

  it('does not share vectors between different models', async () => {
    const cacheFile = join(fixture.root, 'models.sqlite');
    const first = cached(fixture.dir, cacheFile);
    await first.embedDocuments(texts);
    await first.dispose();
    const second = cached(other.dir, cacheFile);
    await second.embedDocuments(texts);
    expect(second.stats.hits).toBe(0);
    await second.dispose();
  });

  it('is switched on by the cacheFile param', async () => {
    const embedder = await createEmbedder({ name: 'transformers', model: fixture.dir, cacheFile: join(fixture.root, 'registry.sqlite') });
    expect(embedder).toBeInstanceOf(CachedEmbedder);
    await embedder.dispose();
  });
});
