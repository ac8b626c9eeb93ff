import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryFixtureModel } from './fixtureModelDir.js';
import { TransformersEmbedder } from '../../src/embedding/transformersEmbedder.js';
import { BGE_QUERY_PREFIX } from '../../src/embedding/transformersParams.js';
import { ConfigError } from '../../src/errors.js';

const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
/** Padding in a batch changes float summation order: equal up to rounding. */
const expectSameVector = (actual: number[] | undefined, expected: number[] | undefined) => {
  expect(actual).toHaveLength(expected!.length);
  expect(Math.max(...actual!.map((x, i) => Math.abs(x - expected![i]!)))).toBeLessThan(1e-5);
};

describe('TransformersEmbedder on a generated fixture model', () => {
  let fixture: Awaited<ReturnType<typeof temporaryFixtureModel>>;
  let embedder: TransformersEmbedder;
  beforeAll(async () => {
    fixture = await temporaryFixtureModel();
    embedder = new TransformersEmbedder({ model: fixture.dir, batchSize: 2 });
  });
  afterAll(async () => {
    await embedder.dispose();
    await fixture.remove();
  });

  it('loads through the transformers.js pipeline and reports its identity with bge defaults', async () => {
    expect(await embedder.identity()).toEqual({
      model: fixture.dir,
      dimension: 32,
      pooling: 'cls',
      normalize: true,
      queryPrefix: BGE_QUERY_PREFIX,
      documentPrefix: '',
    });
  });

  it('gives identical vectors for identical texts', async () => {
    const [first, second] = await embedder.embedDocuments(['秦始皇统一六国', '秦始皇统一六国']);
    expect(first).toHaveLength(32);
    expect(second).toEqual(first);
  });

  it('puts a text nearer to one sharing its characters than to an unrelated one', async () => {
    const [text, related, unrelated] = await embedder.embedDocuments(['秦始皇统一六国', '秦始皇统一天下', '今天天气很好']);
    expect(dot(text!, related!)).toBeGreaterThan(dot(text!, unrelated!) + 0.2);
  });

  it('returns unit-norm vectors', async () => {
    for (const vector of await embedder.embedDocuments(['唐', '宋元明清', 'Hello world'])) {
      expect(Math.sqrt(dot(vector, vector))).toBeCloseTo(1, 5);
    }
  });

  it('prefixes queries, not documents', async () => {
    const query = await embedder.embedQuery('汉武帝');
    const [prefixed, plain] = await embedder.embedDocuments([BGE_QUERY_PREFIX + '汉武帝', '汉武帝']);
    expectSameVector(query, prefixed);
    expect(dot(query, plain!)).toBeLessThan(0.99);
  });

  it('returns vectors in input order although batches are grouped by length', async () => {
    const texts = ['一', '二三四五六七八九十', '甲乙', '子丑寅卯辰巳午未申酉戌亥', '天地'];
    const together = await embedder.embedDocuments(texts);
    const oneByOne = await Promise.all(texts.map(async (text) => (await embedder.embedDocuments([text]))[0]));
    together.forEach((vector, i) => expectSameVector(vector, oneByOne[i]));
  });

  it('counts tokens including [CLS] and [SEP]', async () => {
    expect(await embedder.countTokens(['秦始皇', 'hello'])).toEqual([5, 7]);
  });
});

describe('TransformersEmbedder options', () => {
  let fixture: Awaited<ReturnType<typeof temporaryFixtureModel>>;
  beforeAll(async () => (fixture = await temporaryFixtureModel()));
  afterAll(async () => fixture.remove());

  it('truncates texts to maxTokens', async () => {
    const embedder = new TransformersEmbedder({ model: fixture.dir, maxTokens: 5 });
    // transformers.js keeps the first maxTokens tokens: [CLS] 秦 始 皇 统 (the [SEP] is cut too).
    const [a, b, c] = await embedder.embedDocuments(['秦始皇统一六国', '秦始皇统治天下', '秦始皇焚书坑儒']);
    expectSameVector(a, b);
    expect(dot(a!, c!)).toBeLessThan(0.99);
    await embedder.dispose();
  });

  it('pools by mean when asked', async () => {
    const embedder = new TransformersEmbedder({ model: fixture.dir, pooling: 'mean', normalize: false });
    expect((await embedder.identity()).pooling).toBe('mean');
    const [vector] = await embedder.embedDocuments(['秦始皇']);
    expect(Math.sqrt(dot(vector!, vector!))).not.toBeCloseTo(1, 3);
    await embedder.dispose();
  });

  it('rejects unknown params naming the field', () => {
    expect(() => new TransformersEmbedder({ modle: 'x' } as never)).toThrow(/embedder.*modle/);
  });

  it('names the missing file when a local model directory is incomplete', async () => {
    const embedder = new TransformersEmbedder({ model: fixture.root });
    await expect(embedder.identity()).rejects.toThrow(ConfigError);
    await expect(embedder.identity()).rejects.toThrow(/config\.json is missing/);
  });

  it('refuses to download a hub model unless allowRemote is set', async () => {
    const embedder = new TransformersEmbedder({ model: 'Xenova/bge-large-zh-v1.5', cacheDir: fixture.root });
    await expect(embedder.identity()).rejects.toThrow(/allowRemote/);
  });
});

describe('TransformersEmbedder with a hub model id', () => {
  let fixture: Awaited<ReturnType<typeof temporaryFixtureModel>>;
  beforeAll(async () => (fixture = await temporaryFixtureModel({ dim: 16 })));
  afterAll(async () => fixture.remove());

  it('loads Xenova/bge-large-zh-v1.5 offline from the cache dir, as the real model would be', async () => {
    const { generateFixtureModel } = await import('../../src/embedding/fixture/generateFixtureModel.js');
    const cacheDir = `${fixture.root}/cache`;
    await generateFixtureModel({ outDir: `${cacheDir}/Xenova/bge-large-zh-v1.5`, dim: 16 });
    const embedder = new TransformersEmbedder({ cacheDir });
    expect(await embedder.identity()).toMatchObject({ model: 'Xenova/bge-large-zh-v1.5', dimension: 16 });
    await embedder.dispose();
  });
});
