import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCorpus } from '../../../src/corpus/build.js';
import { type Chunk, readChunks } from '../../../src/runFiles/corpusFiles.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-lhd-'));
  await mkdir(join(dir, 'OCR_res'));
  await writeFile(
    join(dir, 'OCR_res', '9242.json'),
    JSON.stringify({ 0: { punc: '春秋括例始末。' }, 1: {}, 2: { punc: '成公三年，諸侯伐鄭，次于伯牛。' }, 3: { punc: '鄭人禦之。' } }),
  );
  await writeFile(join(dir, 'OCR_res', '777.json'), JSON.stringify({ 0: { punc: '另一書。' } }));
  await writeFile(
    join(dir, 'qa.json'),
    JSON.stringify({ 9242: [{ doc_id: '9242', question: 'q', answer: 'a', book_name: '《左傳句讀直解》', guji_type_zh: '史藏', guji_type_en: 'History' }] }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function build(name: string, builder: Record<string, unknown>) {
  const out = join(dir, 'out', name);
  const manifest = await buildCorpus({ name, builder: { name: 'longhisdoc-ocr', input: join(dir, 'OCR_res'), ...builder }, out, chunking: { maxSize: 200 } });
  const chunks: Chunk[] = [];
  for await (const chunk of readChunks(out)) chunks.push(chunk);
  return { manifest, chunks };
}

describe('longhisdoc-ocr builder', () => {
  it('makes page-level chunks with the one-based page number and book metadata', async () => {
    const { chunks } = await build('pages', { qaFile: join(dir, 'qa.json'), docIds: ['9242'] });
    expect(chunks.map((c) => [c.id, c.meta.page])).toEqual([
      ['pages:9242-p1:0', 1],
      ['pages:9242-p3:0', 3],
      ['pages:9242-p4:0', 4],
    ]);
    // docId is the book, so retrieval can be scoped to one book's pages.
    expect(chunks.every((c) => c.docId === '9242')).toBe(true);
    expect(chunks[1]).toMatchObject({
      title: '《左傳句讀直解》',
      text: '成公三年，諸侯伐鄭，次于伯牛。',
      meta: { doc_id: '9242', page: 3, pages: [3], book_name: '《左傳句讀直解》', guji_type_zh: '史藏', guji_type_en: 'History' },
    });
  });

  it('counts pages without text in the manifest', async () => {
    const { manifest } = await build('empty', {});
    expect(manifest.counts.emptyPages).toBe(1);
    expect(manifest.counts.documentsRead).toBe(5);
  });

  it('keeps pages with the same text apart (no dedupe by default)', async () => {
    const { manifest } = await build('windows-dup', { docIds: ['9242'], windows: { size: 2 } });
    expect(manifest.parameters.dedupe).toBe(false);
    expect(manifest.counts.chunksWritten).toBe(6);
  });

  it('adds windows of n consecutive pages for cross-page evidence', async () => {
    const { chunks } = await build('windows', { docIds: ['9242'], windows: { size: 2 } });
    const windows = chunks.filter((c) => c.meta.window === 2);
    expect(windows.map((c) => [c.id, c.docId, c.meta.pages])).toEqual([
      ['windows:9242-p1-2:0', '9242', [1, 2]],
      ['windows:9242-p2-3:0', '9242', [2, 3]],
      ['windows:9242-p3-4:0', '9242', [3, 4]],
    ]);
    expect(windows[2]!.text).toBe('成公三年，諸侯伐鄭，次于伯牛。\n鄭人禦之。');
  });
});

// The real QA file (when this workplace has it) supplies metadata for a document named in it.
const qaFile = resolve('..', 'shared', 'data', 'LongHisDoc.json');
const hasQa = existsSync(qaFile);
if (!hasQa) console.log(`note: ${qaFile} is absent; skipping the LongHisDoc QA metadata test`);
describe.runIf(hasQa)('longhisdoc-ocr builder with the real QA file', () => {
  it('reads book metadata for doc 9242 from LongHisDoc.json', async () => {
    const { chunks } = await build('real-qa', { qaFile, docIds: ['9242'] });
    expect(chunks[0]!.meta.guji_type_en).toBe('History');
    expect(String(chunks[0]!.meta.book_name)).toContain('春秋');
  });
});
