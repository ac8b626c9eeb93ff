import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../../src/index/buildIndex.js';
import { openIndex } from '../../src/index/openIndex.js';
import { passageText } from '../../src/index/passageText.js';
import { EMBEDDER_PRESETS } from '../../src/embedding/conventions.js';
import { writeFixtureModel, fixtureOptionsSchema } from '../../src/models/fixture/writeFixtureModel.js';
import { GraphBuilder } from '../../src/models/fixture/onnxGraph.js';
import { BERT_INPUTS, bertOutput } from '../../src/models/fixture/modelInputs.js';
import { addWordEmbeddings } from '../../src/models/fixture/smallGraph.js';
import { seededUniform } from '../../src/models/fixture/seededRandom.js';
import { buildVocabulary } from '../../src/models/fixture/vocabulary.js';
import { buildEncoderGraph } from '../../src/models/fixture/encoderGraph.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { sampleChunks, writeTestCorpus } from '../index/testCorpus.js';

const quiet = { silent: true };

/** A server-side "model": a bag of characters hashed into 8 dimensions (what it computes does not matter here, only what it receives). */
function bagOfCharacters(texts: string[]): number[][] {
  return texts.map((text) => {
    const vector = new Array<number>(8).fill(0.01);
    for (const ch of text) vector[ch.codePointAt(0)! % 8]! += 1;
    return vector;
  });
}

/** Every text the server was asked to embed, request by request. */
function receivedTexts(server: OpenAIServer): string[][] {
  return server.requests
    .filter((request) => request.path === '/v1/embeddings')
    .map((request) => {
      const input = (request.body as { input: string | string[] }).input;
      return Array.isArray(input) ? input : [input];
    });
}

describe('document and query prefixes against a logging embeddings server (multilingual-e5 preset)', () => {
  let server: OpenAIServer;
  let root: string;
  let corpusDir: string;
  const spec = () => ({ name: 'openai', baseURL: server.url, model: 'e5', preset: 'multilingual-e5', maxRetries: 0, batchSize: 5 });

  beforeAll(async () => {
    server = await startOpenAIServer({ embeddings: bagOfCharacters });
    root = mkdtempSync(join(tmpdir(), 'hisrag-conventions-'));
    corpusDir = await writeTestCorpus(join(root, 'corpus'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('sends every chunk with passage: and every query with query: , stores neither, and opens the index without a probe', async () => {
    const out = join(root, 'exact');
    const manifest = await buildIndex({ corpusDir, out, retriever: 'exact', embedder: spec(), progress: quiet });
    expect(manifest.embedder?.identity).toMatchObject({ pooling: 'mean', queryPrefix: 'query: ', documentPrefix: 'passage: ', dimension: 8 });
    expect(manifest.embedder?.conventions).toMatchObject({ pooling: 'preset multilingual-e5', documentPrefix: 'preset multilingual-e5' });

    const built = receivedTexts(server).flat();
    const chunks = sampleChunks();
    // Each chunk's passage arrived once, prefixed; the only other text is the build's dimension request, a document too.
    for (const chunk of chunks) expect(built).toContain(`passage: ${passageText(chunk, 'title+text')}`);
    expect(built.every((text) => text.startsWith('passage: '))).toBe(true);
    expect(built.length).toBeLessThanOrEqual(chunks.length + 1);

    const before = server.requests.length;
    const index = await openIndex(out);
    try {
      const one = await index.embedQuery('汉武帝');
      const many = await index.embedQueries(['张骞', '霍去病', '科举']);
      const queried = receivedTexts(server).slice(receivedTexts(server).length - (server.requests.length - before));
      // No probe: exactly the query requests, each text with the query prefix.
      expect(queried).toEqual([['query: 汉武帝'], ['query: 张骞', 'query: 霍去病', 'query: 科举']]);
      // The server's vector for the prefixed query is what embedQuery returned (float32 on the wire).
      const [served] = bagOfCharacters(['query: 汉武帝']);
      one.forEach((x, i) => expect(x).toBeCloseTo(served![i]!, 5));
      expect(many).toHaveLength(3);
      // Stored chunk text carries no prefix.
      expect(index.store.byId(chunks[0]!.id)?.text).toBe(chunks[0]!.text);
    } finally {
      await index.close();
    }
  });

  it('an explicit field overrides the preset, and the index records which applied', async () => {
    const out = join(root, 'override');
    const manifest = await buildIndex({ corpusDir, out, retriever: 'exact', embedder: { ...spec(), documentPrefix: '文：' }, progress: quiet });
    expect(manifest.embedder?.identity).toMatchObject({ queryPrefix: 'query: ', documentPrefix: '文：' });
    expect(manifest.embedder?.conventions).toMatchObject({ queryPrefix: 'preset multilingual-e5', documentPrefix: 'config' });
  });

  it('every preset names the conventions its model card gives', () => {
    expect(EMBEDDER_PRESETS['multilingual-e5']).toEqual({ pooling: 'mean', normalize: true, queryPrefix: 'query: ', documentPrefix: 'passage: ' });
    expect(EMBEDDER_PRESETS['qwen3-embedding'].pooling).toBe('last');
    expect(EMBEDDER_PRESETS['qwen3-embedding'].queryPrefix).toMatch(/^Instruct: .+\nQuery:$/);
    expect(EMBEDDER_PRESETS['bge-m3'].pooling).toBe('cls');
  });
});

const WORDS = 'embeddings.word_embeddings.weight';

/**
 * A model whose every position's output is its token's embedding row (no mixing), so that pooling is
 * visible: CLS gives the [CLS] row, mean the average of all rows. Written in sentence-transformers'
 * layout: `1_Pooling/config.json` saying mean pooling, `modules.json` with Normalize, and prompts.
 */
async function sentenceTransformersModel(dir: string, seed: number, dim: number): Promise<void> {
  await writeFixtureModel(fixtureOptionsSchema(['tokens']), { outDir: dir, seed, dim }, {
    config: () => ({}),
    small: (options) => {
      const g = new GraphBuilder();
      const words = addWordEmbeddings(g, options, () => {});
      g.op1('Gather', [words, 'input_ids'], {}, 'last_hidden_state');
      return g.build('token_rows', BERT_INPUTS, [bertOutput(options.dim)]);
    },
    encoder: buildEncoderGraph,
  });
  await mkdir(join(dir, '1_Pooling'), { recursive: true });
  await writeFile(join(dir, '1_Pooling', 'config.json'), JSON.stringify({ word_embedding_dimension: dim, pooling_mode_cls_token: false, pooling_mode_mean_tokens: true, pooling_mode_max_tokens: false }));
  await writeFile(
    join(dir, 'modules.json'),
    JSON.stringify([
      { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
      { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
      { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
    ]),
  );
  await writeFile(join(dir, 'config_sentence_transformers.json'), JSON.stringify({ prompts: { query: '查询：', document: '' } }));
}

describe('a model directory in sentence-transformers layout decides pooling, normalisation and prompts', () => {
  const seed = 11;
  const dim = 6;
  let root: string;
  let corpusDir: string;
  let modelDir: string;
  const vocabulary = buildVocabulary();
  const table = seededUniform(seed, WORDS, vocabulary.length * dim, 1);
  const row = (token: string) => Array.from(table.subarray(vocabulary.indexOf(token) * dim, (vocabulary.indexOf(token) + 1) * dim));
  /** By hand: [CLS] + one token per CJK character or punctuation mark + [SEP], their rows averaged, then scaled to unit length. */
  const meanPooled = (text: string) => {
    const tokens = ['[CLS]', ...Array.from(text), '[SEP]'];
    for (const token of tokens) expect(vocabulary).toContain(token);
    const sum = new Array<number>(dim).fill(0);
    for (const token of tokens) row(token).forEach((x, i) => (sum[i]! += x / tokens.length));
    const norm = Math.hypot(...sum);
    return sum.map((x) => x / norm);
  };
  const unit = (vector: number[]) => vector.map((x) => x / Math.hypot(...vector));

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-st-model-'));
    corpusDir = await writeTestCorpus(join(root, 'corpus'));
    modelDir = join(root, 'model');
    await sentenceTransformersModel(modelDir, seed, dim);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('records mean pooling and the query prompt, and embeds accordingly (checked against mean pooling by hand)', async () => {
    const out = join(root, 'exact');
    const manifest = await buildIndex({ corpusDir, out, retriever: 'exact', embedder: { name: 'transformers', model: modelDir }, vectorEncoding: 'f32', progress: quiet });
    expect(manifest.embedder?.identity).toMatchObject({ pooling: 'mean', normalize: true, queryPrefix: '查询：', documentPrefix: '' });
    expect(manifest.embedder?.conventions).toEqual({
      pooling: 'model files (1_Pooling/config.json)',
      normalize: 'model files (modules.json)',
      queryPrefix: 'model files (config_sentence_transformers.json)',
      documentPrefix: 'model files (config_sentence_transformers.json)',
    });
    const index = await openIndex(out);
    try {
      const chunk = sampleChunks()[4]!; // 武帝即位…, titled 漢書
      const stored = Array.from(index.store.vector(index.store.byId(chunk.id)!.label)!);
      const expected = meanPooled(passageText(chunk, 'title+text').replace('\n', ''));
      stored.forEach((x, i) => expect(x).toBeCloseTo(expected[i]!, 5));
      const query = await index.embedQuery('汉武帝');
      meanPooled('查询：汉武帝').forEach((x, i) => expect(query[i]).toBeCloseTo(x, 5));
    } finally {
      await index.close();
    }
  });

  it('the config overrides the model files: pooling cls takes the [CLS] row', async () => {
    const out = join(root, 'cls');
    const manifest = await buildIndex({ corpusDir, out, retriever: 'exact', embedder: { name: 'transformers', model: modelDir, pooling: 'cls' }, vectorEncoding: 'f32', progress: quiet });
    expect(manifest.embedder?.identity.pooling).toBe('cls');
    expect(manifest.embedder?.conventions?.pooling).toBe('config');
    const index = await openIndex(out);
    try {
      const query = await index.embedQuery('汉武帝');
      unit(row('[CLS]')).forEach((x, i) => expect(query[i]).toBeCloseTo(x, 5));
    } finally {
      await index.close();
    }
  });
});
