import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataFileError } from '../../../src/errors.js';
import { readOcrPages } from '../../../src/corpus/longhisdoc/ocrFile.js';

let dir: string;
const write = async (name: string, content: string) => {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
};
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-ocr-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readOcrPages', () => {
  it('maps zero-based keys to one-based pages in numeric order', async () => {
    const pages: Record<string, { punc: string }> = {};
    for (let i = 0; i < 11; i++) pages[String(i)] = { punc: `第${i + 1}頁。` };
    const file = await write('order.json', JSON.stringify(pages));
    const read = await readOcrPages(file);
    expect(read.map((p) => p.page)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(read[9]).toEqual({ page: 10, text: '第10頁。', missing: false });
  });

  it('returns a page without punc as an empty missing page', async () => {
    const file = await write('missing.json', JSON.stringify({ 0: { punc: '甲。' }, 1: { ocr: 'raw' }, 2: { punc: '' } }));
    expect(await readOcrPages(file)).toEqual([
      { page: 1, text: '甲。', missing: false },
      { page: 2, text: '', missing: true },
      { page: 3, text: '', missing: false },
    ]);
  });

  it('fills a page number skipped between two keys with a missing page', async () => {
    const file = await write('gap.json', JSON.stringify({ 0: { punc: '甲' }, 2: { punc: '丙' } }));
    expect((await readOcrPages(file)).map((p) => [p.page, p.missing])).toEqual([[1, false], [2, true], [3, false]]);
  });

  it('rejects a non-numeric page key, naming the file and the key', async () => {
    const file = await write('badkey.json', JSON.stringify({ 0: { punc: '甲' }, page2: { punc: '乙' } }));
    const error = await readOcrPages(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataFileError);
    expect((error as Error).message).toContain('badkey.json');
    expect((error as Error).message).toContain('page2');
  });

  it('rejects a file that is not JSON, naming the file', async () => {
    const file = await write('broken.json', '{"0": {"punc": "甲"');
    await expect(readOcrPages(file)).rejects.toThrow(/broken\.json: not valid JSON/);
  });

  it('rejects a punc that is not a string', async () => {
    const file = await write('badpunc.json', JSON.stringify({ 0: { punc: 3 } }));
    await expect(readOcrPages(file)).rejects.toThrow(DataFileError);
  });
});
