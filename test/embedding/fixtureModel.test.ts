import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryFixtureModel } from './fixtureModelDir.js';
import { buildVocabulary, SPECIAL_TOKENS } from '../../src/models/fixture/vocabulary.js';
import { generateFixtureModel } from '../../src/embedding/fixture/generateFixtureModel.js';
import { ConfigError } from '../../src/errors.js';

describe('generateFixtureModel', () => {
  let a: Awaited<ReturnType<typeof temporaryFixtureModel>>;
  let b: Awaited<ReturnType<typeof temporaryFixtureModel>>;
  let c: Awaited<ReturnType<typeof temporaryFixtureModel>>;
  beforeAll(async () => {
    [a, b, c] = await Promise.all([
      temporaryFixtureModel({ seed: 7 }),
      temporaryFixtureModel({ seed: 7 }),
      temporaryFixtureModel({ seed: 8 }),
    ]);
  });
  afterAll(async () => Promise.all([a.remove(), b.remove(), c.remove()]));

  it('writes the files transformers.js reads for Xenova/bge-large-zh-v1.5', () => {
    expect(a.files).toEqual(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx']);
  });

  it('writes identical bytes for the same seed', async () => {
    for (const file of a.files) {
      const [bytesA, bytesB] = [await readFile(join(a.dir, file)), await readFile(join(b.dir, file))];
      expect(bytesB.equals(bytesA), file).toBe(true);
    }
  });

  it('writes different weights for a different seed', async () => {
    const onnxA = await readFile(join(a.dir, 'onnx/model.onnx'));
    const onnxC = await readFile(join(c.dir, 'onnx/model.onnx'));
    expect(onnxC.equals(onnxA)).toBe(false);
  });

  it('describes a BERT model of the requested width in config.json', async () => {
    const config = JSON.parse(await readFile(join(a.dir, 'config.json'), 'utf8'));
    expect(config).toMatchObject({ model_type: 'bert', hidden_size: 32, vocab_size: buildVocabulary().length });
  });

  it('rejects an encoder whose hidden size the heads do not divide', async () => {
    await expect(generateFixtureModel({ outDir: a.root, kind: 'bert', dim: 30, heads: 4 })).rejects.toThrow(/fixture\.heads/);
  });

  it('rejects options it does not know', async () => {
    await expect(generateFixtureModel({ outDir: a.root, dims: 3 } as never)).rejects.toThrow(ConfigError);
  });
});

describe('fixture vocabulary', () => {
  const vocab = buildVocabulary();

  it('starts with the special tokens', () => {
    expect(vocab.slice(0, SPECIAL_TOKENS.length)).toEqual([...SPECIAL_TOKENS]);
  });

  it('covers every CJK Unified Ideograph U+4E00–U+9FFF', () => {
    const tokens = new Set(vocab);
    const missing = [];
    for (let code = 0x4e00; code <= 0x9fff; code++) if (!tokens.has(String.fromCodePoint(code))) missing.push(code);
    expect(missing).toEqual([]);
  });

  it('covers CJK punctuation, full-width forms and ASCII', () => {
    const tokens = new Set(vocab);
    expect([...'。，、；：？！「」『』（）《》—…·“”‘’０ａ！a0?'].filter((ch) => !tokens.has(ch))).toEqual([]);
  });

  it('keeps the specials and the commonest ideographs when cut to a smaller size', () => {
    const small = buildVocabulary(21128);
    expect(small).toHaveLength(21128);
    expect(small).toEqual(expect.arrayContaining([...SPECIAL_TOKENS, '一', '秦', '漢', '。']));
  });
});
