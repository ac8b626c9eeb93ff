import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkDocument } from '../../src/chunking/chunker.js';
import { loadTokenCounter, loadTokenizerSpec, resolveTokenizerSpec, tokenizerUnit } from '../../src/chunking/tokenCounter.js';
import { InputError } from '../../src/errors.js';

// A tiny BERT WordPiece tokenizer in the layout transformers.js reads (tokenizer.json + config).
const special = (id: number, content: string) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '科', '举', '。', '考', '试', 'hello', '##s'];
const tokenizerJson = {
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: [special(0, '[PAD]'), special(1, '[UNK]'), special(2, '[CLS]'), special(3, '[SEP]')],
  normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
  pre_tokenizer: { type: 'BertPreTokenizer' },
  post_processor: {
    type: 'TemplateProcessing',
    single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
    pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
    special_tokens: {
      '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
      '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
    },
  },
  decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
  model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: Object.fromEntries(vocab.map((t, i) => [t, i])) },
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-tok-'));
  await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson));
  await writeFile(join(dir, 'tokenizer_config.json'), JSON.stringify({ tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: 512 }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadTokenCounter', () => {
  it('counts the tokenizer\'s tokens without [CLS]/[SEP]', async () => {
    const count = await loadTokenCounter(dir);
    expect(count('科举。')).toBe(3);
    expect(count('Hellos 考试')).toBe(4); // hello ##s 考 试
  });

  it('lets the chunker pack by tokens', async () => {
    const measure = await loadTokenCounter(dir);
    const chunks = chunkDocument({ docId: 'd', title: '', text: 'hellos hellos。科举。考试。', meta: {} }, { corpus: 'c', maxSize: 6, overlap: 0, measure });
    expect(chunks.map((c) => c.text)).toEqual(['hellos hellos。', '科举。考试。']);
  });

  it('names the missing file when the directory has no tokenizer.json', async () => {
    await expect(loadTokenCounter(join(dir, 'nope'))).rejects.toThrow(InputError);
    await expect(loadTokenCounter(join(dir, 'nope'))).rejects.toThrow(/nope\/tokenizer\.json not found/);
  });
});

describe('OpenAI encodings (`tokenizer: tiktoken:<encoding>`)', () => {
  // Golden counts from OpenAI's cookbook ("How to count tokens with tiktoken", its encoding comparison).
  const cookbook: Record<string, Record<string, number>> = {
    antidisestablishmentarianism: { r50k_base: 5, p50k_base: 5, cl100k_base: 6 },
    '2 + 2 = 4': { r50k_base: 5, p50k_base: 5, cl100k_base: 7 },
    'お誕生日おめでとう': { r50k_base: 14, p50k_base: 14, cl100k_base: 9 },
    'tiktoken is great!': { cl100k_base: 6 },
  };
  it("counts as tiktoken's reference encodings do", async () => {
    for (const [text, counts] of Object.entries(cookbook)) {
      for (const [encoding, expected] of Object.entries(counts)) {
        const count = await loadTokenizerSpec(`tiktoken:${encoding}`);
        expect([text, encoding, count(text)]).toEqual([text, encoding, expected]);
      }
    }
  });

  it('counts special-token text in a passage as ordinary text instead of refusing it', async () => {
    const count = await loadTokenizerSpec('tiktoken:o200k_base');
    expect(count('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('keeps an encoding name as written, resolves a directory, names the unit, and refuses an unknown encoding naming the known ones', async () => {
    expect(resolveTokenizerSpec('tiktoken:o200k_base', '/base')).toBe('tiktoken:o200k_base');
    expect(resolveTokenizerSpec('tok/qwen', '/base')).toBe('/base/tok/qwen');
    expect(tokenizerUnit('tiktoken:cl100k_base')).toBe('tokens (cl100k_base encoding)');
    expect(tokenizerUnit('/base/tok/qwen')).toBe('tokens (qwen tokenizer)');
    await expect(loadTokenizerSpec('tiktoken:o300k')).rejects.toThrow(InputError);
    await expect(loadTokenizerSpec('tiktoken:o300k')).rejects.toThrow(/unknown OpenAI encoding "o300k".*tiktoken:cl100k_base/);
  });

  it('lets the chunker pack by an OpenAI encoding', async () => {
    const measure = await loadTokenizerSpec('tiktoken:cl100k_base');
    const text = '2 + 2 = 4。'.repeat(6);
    const chunks = chunkDocument({ docId: 'd', title: '', text, meta: {} }, { corpus: 'c', maxSize: 20, overlap: 0, measure });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(measure(chunk.text)).toBeLessThanOrEqual(20);
  });
});
