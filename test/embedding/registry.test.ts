import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryFixtureModel } from './fixtureModelDir.js';
import { createEmbedder, embedders } from '../../src/embedding/registry.js';
import { ConfigError } from '../../src/errors.js';

describe('embedder registry', () => {
  let fixture: Awaited<ReturnType<typeof temporaryFixtureModel>>;
  beforeAll(async () => (fixture = await temporaryFixtureModel({ dim: 16 })));
  afterAll(async () => fixture.remove());

  it('lists the transformers embedder', () => {
    expect(embedders.names()).toContain('transformers');
  });

  it('creates a working embedder from a config spec', async () => {
    const embedder = await createEmbedder({ name: 'transformers', model: fixture.dir });
    expect((await embedder.identity()).dimension).toBe(16);
    expect(await embedder.embedQuery('秦')).toHaveLength(16);
    await embedder.dispose();
  });

  it('rejects a bad param naming its config path', async () => {
    await expect(createEmbedder({ name: 'transformers', pooling: 'max' }, 'retrieval.embedder')).rejects.toThrow(
      /retrieval\.embedder\.pooling/,
    );
  });

  it('rejects an unknown embedder name', async () => {
    await expect(createEmbedder({ name: 'word2vec' })).rejects.toThrow(ConfigError);
  });
});
