import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { benchmarks } from '../../src/benchmarks/registry.js';
import type { Benchmark } from '../../src/benchmarks/types.js';
import { forgetPageImageScans } from '../../src/corpus/longhisdoc/pageImages.js';
import { DataFileError } from '../../src/errors.js';
import { writeOcrFolder, writePageImageFolder } from '../corpus/longhisdoc/pageImageFolder.js';

const parent = mkdtempSync(join(tmpdir(), 'hisrag-lhd-images-'));
const fresh = () => mkdtempSync(join(parent, 'dir-'));
afterEach(() => forgetPageImageScans());
afterAll(() => rmSync(parent, { recursive: true, force: true }));

const create = (spec: Record<string, unknown>) => benchmarks.create({ name: 'longhisdoc', ...spec } as { name: string }, undefined) as Promise<Benchmark>;

const record = (docId: string, n: number, input: number[], evidence: number[]) => ({
  doc_id: docId,
  item_id: `${docId}_${n}`,
  question: '问题',
  answer: '答案',
  evidence_pages: JSON.stringify(evidence).replace(/,/g, ', '),
  input_pages: JSON.stringify(input).replace(/,/g, ', '),
  type: 'Single Page',
  answer_type: 'Str',
  evidence_modal: 'visual',
  book_name: '《某书》',
  guji_type_zh: '史藏',
  guji_type_en: 'History',
});

function qaFile(content: unknown): string {
  const path = join(fresh(), 'qa.json');
  writeFileSync(path, JSON.stringify(content));
  return path;
}

describe('longhisdoc loader with imageDir', () => {
  const sample = resolve('corpora/sources/demo-longhisdoc');

  it('loads the bundled sample with its page images: meta.imageDir on every item, the image check in describe()', async () => {
    const benchmark = await create({ file: join(sample, 'qa.json'), ocrDir: join(sample, 'OCR_res'), imageDir: join(sample, 'LongHisDoc_IMG') });
    const items = await benchmark.load();
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) expect(item.meta.imageDir).toBe(join(sample, 'LongHisDoc_IMG'));
    expect(items.find((item) => item.docId === '90002')!.meta.imageDocument).toEqual({ docId: '90002', pages: 12, exact: true });
    expect(benchmark.describe()).toMatchObject({
      imageDir: join(sample, 'LongHisDoc_IMG'),
      onImageProblem: 'error',
      images: { documents: 3, pages: 10 + 12 + 9, problems: {}, examples: [] },
    });
  });

  it('loads the sample’s visual-evidence questions (qa-visual.json) against the same images, their evidence absent from the OCR', async () => {
    const benchmark = await create({ file: join(sample, 'qa-visual.json'), ocrDir: join(sample, 'OCR_res'), imageDir: join(sample, 'LongHisDoc_IMG') });
    const items = await benchmark.load();
    expect(items.length).toBeGreaterThanOrEqual(3);
    expect(new Set(items.map((item) => item.evidenceModal))).toEqual(new Set(['visual']));
    expect(benchmark.describe()).toMatchObject({ images: { problems: {} } });
    // The seal and the plate are drawn on the page only: the answers are not in the OCR text.
    const ocr = JSON.parse(readFileSync(join(sample, 'OCR_res', '90001.json'), 'utf8')) as Record<string, { punc?: string }>;
    expect(Object.values(ocr).map((p) => p.punc ?? '').join('')).not.toContain(String(items.find((i) => i.id === '90001_v1')!.answer));
    const plate = JSON.parse(readFileSync(join(sample, 'OCR_res', '90003.json'), 'utf8')) as Record<string, { punc?: string }>;
    expect(plate['4']?.punc).toBeUndefined();
  });

  it('refuses, on load, an item whose input page has no image, naming the document and page', async () => {
    const file = qaFile({ d1: [record('d1', 1, [1, 2, 3], [2])] });
    const imageDir = await writePageImageFolder({ d1: 3 }, fresh());
    unlinkSync(join(imageDir, 'd1', 'page_3.jpg'));
    const benchmark = await create({ file, imageDir });
    const error = await benchmark.load().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataFileError);
    expect((error as Error).message).toContain(`missing page image d1 page 3 (${join(imageDir, 'd1', 'page_3.jpg')})`);
  });

  it('takes page counts from the OCR when ocrDir is given: an item naming a page past them is a problem, so is a folder with more pages', async () => {
    const file = qaFile({ d1: [record('d1', 1, [1, 2, 3, 4, 5], [5])], d2: [record('d2', 1, [1], [1])] });
    const ocrDir = writeOcrFolder({ d1: 4, d2: 2 }, fresh());
    const imageDir = await writePageImageFolder({ d1: 4, d2: 3 }, fresh());
    const benchmark = await create({ file, ocrDir, imageDir, onImageProblem: 'warn' });
    const items = await benchmark.load();
    expect(items).toHaveLength(2);
    const { images } = benchmark.describe();
    expect(images).toMatchObject({ documents: 2, pages: 6, problems: { 'extra-pages': 1, 'missing-page': 1 } });
    expect(images?.examples.join('\n')).toContain('image folder of document d2 does not match the OCR: 3 page images for 2 OCR pages');
    expect(images?.examples.join('\n')).toContain('item d1_1 names page 5 of document d1, beyond its 4 OCR pages');
    await expect((await create({ file, ocrDir, imageDir })).load()).rejects.toThrow(/2 page image problems \(1 extra-pages, 1 missing-page\)/);
  });

  it('without ocrDir checks pages up to the highest one an item names, and more images in the folder are no problem', async () => {
    const file = qaFile({ d1: [record('d1', 1, [1, 2], [2]), record('d1', 2, [2, 3], [3])] });
    const imageDir = await writePageImageFolder({ d1: 8 }, fresh());
    const benchmark = await create({ file, imageDir });
    await benchmark.load();
    expect(benchmark.describe()).toMatchObject({ images: { documents: 1, pages: 3, problems: {} } });
  });

  it('counts a corrupt page under onImageProblem: warn and still loads every item', async () => {
    const file = qaFile({ d1: [record('d1', 1, [1, 2], [1]), record('d1', 2, [1, 2], [2])] });
    const imageDir = await writePageImageFolder({ d1: 2 }, fresh());
    writeFileSync(join(imageDir, 'd1', 'page_2.jpg'), 'not a jpeg');
    const benchmark = await create({ file, imageDir, onImageProblem: 'warn' });
    expect(await benchmark.load()).toHaveLength(2);
    expect(benchmark.describe()).toMatchObject({ images: { pages: 1, problems: { unreadable: 1 }, examples: [expect.stringContaining('unreadable JPEG d1 page 2')] } });
  });

  it('checks only the documents of the items a filter keeps', async () => {
    const file = qaFile({ d1: [record('d1', 1, [1], [1])], d2: [record('d2', 1, [1], [1])] });
    const imageDir = await writePageImageFolder({ d1: 1 }, fresh());
    const benchmark = await create({ file, imageDir, ids: ['d1_1'] });
    expect(await benchmark.load()).toHaveLength(1);
    await expect((await create({ file, imageDir })).load()).rejects.toThrow(/no image folder for document d2/);
  });

  it('leaves items without image fields when no imageDir is given', async () => {
    const benchmark = await create({ file: join(sample, 'qa.json') });
    const [item] = await benchmark.load();
    expect(item!.meta.imageDir).toBeUndefined();
    expect(benchmark.describe().images).toBeUndefined();
  });
});
