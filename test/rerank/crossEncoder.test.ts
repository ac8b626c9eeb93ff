import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline, type TextClassificationPipeline } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrossEncoderReranker } from '../../src/rerank/crossEncoderReranker.js';
import { loadCrossEncoder } from '../../src/rerank/crossEncoderModel.js';
import { generateRerankerFixture } from '../../src/rerank/fixture/generateRerankerFixture.js';
import { ConfigError, InputError } from '../../src/errors.js';
import { temporaryRerankerFixture } from './rerankerFixtureDir.js';

const QUERY = '科举制度始于哪个朝代';
const PASSAGES = ['科举制度始于隋朝，唐朝沿用并完善。', '长城是古代的防御工程。', '今天天气很好', '隋朝开创科举，以考试选拔官员。'];

describe('the generated coverage cross-encoder', () => {
  let fixture: Awaited<ReturnType<typeof temporaryRerankerFixture>>;
  beforeAll(async () => {
    fixture = await temporaryRerankerFixture();
  });
  afterAll(() => fixture.remove());

  it('is the same bytes from the same seed and different bytes from another', async () => {
    const again = await temporaryRerankerFixture();
    const other = await temporaryRerankerFixture({ seed: 7 });
    const bytes = (dir: string) => readFileSync(join(dir, 'onnx/model.onnx'));
    expect(bytes(again.dir).equals(bytes(fixture.dir))).toBe(true);
    expect(bytes(other.dir).equals(bytes(fixture.dir))).toBe(false);
    await Promise.all([again.remove(), other.remove()]);
  });

  it('declares a one-label sequence-classification model in config.json', () => {
    const config = JSON.parse(readFileSync(join(fixture.dir, 'config.json'), 'utf8'));
    expect(config).toMatchObject({ architectures: ['BertForSequenceClassification'], model_type: 'bert', id2label: { 0: 'LABEL_0' } });
  });

  it('scores passages covering the query above unrelated ones', async () => {
    const reranker = new CrossEncoderReranker({ model: fixture.dir });
    const scores = await reranker.score(QUERY, PASSAGES);
    await reranker.close();
    for (const s of scores) expect(s).toBeGreaterThan(0), expect(s).toBeLessThan(1);
    expect(Math.min(scores[0]!, scores[3]!)).toBeGreaterThan(Math.max(scores[1]!, scores[2]!));
  });

  it('gives the same scores batched by length as one pair at a time, and repeats come from the cache', async () => {
    const batched = new CrossEncoderReranker({ model: fixture.dir, batchSize: 3 });
    const single = new CrossEncoderReranker({ model: fixture.dir, batchSize: 1, cacheSize: 0 });
    const a = await batched.score(QUERY, PASSAGES);
    const b = await single.score(QUERY, PASSAGES);
    a.forEach((x, i) => expect(x).toBeCloseTo(b[i]!, 5));
    await batched.score(QUERY, PASSAGES);
    expect(await batched.score(QUERY, [PASSAGES[1]!])).toEqual([a[1]]);
    await Promise.all([batched.close(), single.close()]);
  });

  it('keeps pair logits in cacheFile, and a new reranker reads them from there', async () => {
    const cacheFile = join(fixture.root, 'rerank-cache.sqlite');
    const first = new CrossEncoderReranker({ model: fixture.dir, cacheFile });
    const logits = await first.logits(QUERY, PASSAGES);
    await first.close();
    const { PairScoreStore } = await import('../../src/rerank/pairScoreStore.js');
    const { PairScoreCache } = await import('../../src/rerank/pairScoreCache.js');
    const second = new CrossEncoderReranker({ model: fixture.dir, cacheFile });
    const fingerprint = (await second.load()).fingerprint;
    const keyer = new PairScoreCache(fingerprint, 0);
    const store = new PairScoreStore(cacheFile);
    PASSAGES.forEach((p, i) => expect(store.get(keyer.key(QUERY, p))).toBeCloseTo(logits[i]!, 5));
    store.putMany([[keyer.key(QUERY, PASSAGES[0]!), 7]]); // a value the model would not give: only the file can answer it
    store.close();
    expect((await second.logits(QUERY, PASSAGES))[0]).toBe(7);
    await second.close();
  });

  it('gives the same scores from two worker processes as in process', async () => {
    const inProcess = new CrossEncoderReranker({ model: fixture.dir, batchSize: 2 });
    const workers = new CrossEncoderReranker({ model: fixture.dir, batchSize: 2, workers: 2 });
    const a = await inProcess.score(QUERY, PASSAGES);
    const b = await workers.score(QUERY, PASSAGES);
    b.forEach((x, i) => expect(x).toBeCloseTo(a[i]!, 6));
    await Promise.all([inProcess.close(), workers.close()]);
  });

  it('cuts long pairs on the passage side only, keeping the query and the final separator', async () => {
    const model = await loadCrossEncoder({ model: fixture.dir, cacheDir: '.cache/transformers', allowRemote: false, maxTokens: 16, dtype: 'fp32', batchSize: 4 });
    const pair = model.encodePair('秦始皇统一六国', '汉武帝北击匈奴，张骞出使西域，丝绸之路由此开通。');
    await model.dispose();
    expect(pair.inputIds).toHaveLength(16);
    // [CLS]=2, [SEP]=3 in the fixture vocabulary; the 7 query characters follow [CLS] with token type 0.
    expect(pair.inputIds[0]).toBe(2);
    expect(pair.inputIds[8]).toBe(3);
    expect(pair.inputIds[15]).toBe(3);
    expect(pair.tokenTypeIds!.slice(0, 9).every((t) => t === 0)).toBe(true);
    expect(pair.tokenTypeIds!.slice(9).every((t) => t === 1)).toBe(true);
    expect(pair.passageTokensCut).toBe(24 - 6);
  });

  it('refuses a query that leaves no room for a passage instead of cutting it', async () => {
    const model = await loadCrossEncoder({ model: fixture.dir, cacheDir: '.cache/transformers', allowRemote: false, maxTokens: 8, dtype: 'fp32', batchSize: 4 });
    expect(() => model.encodePair('秦始皇统一六国之后', '汉武帝')).toThrow(InputError);
    await model.dispose();
  });

  it('names the missing file when the model directory is incomplete', async () => {
    const reranker = new CrossEncoderReranker({ model: join(fixture.root, 'nowhere') });
    await expect(reranker.score(QUERY, PASSAGES)).rejects.toThrow(ConfigError);
    await expect(reranker.score(QUERY, PASSAGES)).rejects.toThrow(/rerank\.model: .*config\.json is missing/);
  });
});

describe('the generated BERT cross-encoder (bge-reranker-large architecture, small)', () => {
  let fixture: Awaited<ReturnType<typeof temporaryRerankerFixture>>;
  beforeAll(async () => {
    fixture = await temporaryRerankerFixture({ kind: 'bert', dim: 32, heads: 4, layers: 2 });
  });
  afterAll(() => fixture.remove());

  it('loads fp32 and q8 through transformers.js and q8 scores close to fp32', async () => {
    const fp32 = new CrossEncoderReranker({ model: fixture.dir });
    const q8 = new CrossEncoderReranker({ model: fixture.dir, dtype: 'q8' });
    const a = await fp32.score(QUERY, PASSAGES);
    const b = await q8.score(QUERY, PASSAGES);
    expect(new Set(a).size).toBe(PASSAGES.length);
    a.forEach((x, i) => expect(Math.abs(x - b[i]!)).toBeLessThan(0.02));
    await Promise.all([fp32.close(), q8.close()]);
  });

  it('also loads as a plain transformers.js text-classification pipeline (the benchmark baseline)', async () => {
    const classifier = (await pipeline('text-classification', fixture.dir, { dtype: 'fp32', local_files_only: true })) as TextClassificationPipeline;
    const out = (await classifier(['秦始皇[SEP]统一六国'])) as { label: string; score: number }[];
    expect(out[0]!.label).toBe('LABEL_0');
    await classifier.dispose();
  });

  it('a multi-label model is refused: a reranker needs one logit per pair', async () => {
    const dir = join(fixture.root, 'two-labels');
    await generateRerankerFixture({ outDir: dir, dim: 16 });
    const path = join(dir, 'config.json');
    const config = JSON.parse(readFileSync(path, 'utf8'));
    config.id2label = { 0: 'no', 1: 'yes' };
    (await import('node:fs')).writeFileSync(path, JSON.stringify(config));
    await expect(new CrossEncoderReranker({ model: dir }).score(QUERY, PASSAGES)).rejects.toThrow(/2 labels/);
  });
});

describe('hisrag model fixture --reranker', () => {
  it('writes a loadable cross-encoder and says what it wrote', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { runCli } = await import('../helpers/runCli.js');
    const root = mkdtempSync(join(tmpdir(), 'hisrag-reranker-cli-'));
    const result = await runCli(['model', 'fixture', '--reranker', '--out', join(root, 'm'), '--dim', '16']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('cross-encoder coverage fixture model, dimension 16');
    const reranker = new CrossEncoderReranker({ model: join(root, 'm') });
    expect(await reranker.score(QUERY, PASSAGES)).toHaveLength(PASSAGES.length);
    await reranker.close();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);
});
