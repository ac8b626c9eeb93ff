import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DataFileError } from '../../../src/errors.js';
import { forgetPageImageScans, inspectJpeg, openPageImageCatalog } from '../../../src/corpus/longhisdoc/pageImages.js';
import { readOcrPages } from '../../../src/corpus/longhisdoc/ocrFile.js';
import { jpeg, pageSize, writePageImageFolder as writeFolder } from './pageImageFolder.js';

const parent = mkdtempSync(join(tmpdir(), 'hisrag-page-images-'));
const writePageImageFolder = (pagesByDoc: Record<string, number>) => writeFolder(pagesByDoc, mkdtempSync(join(parent, 'dir-')));
afterEach(() => forgetPageImageScans());
afterAll(() => rmSync(parent, { recursive: true, force: true }));

const refuse = async (imageDir: string, documents: { docId: string; pages: number }[]) => {
  const error = await openPageImageCatalog({ imageDir, documents, onProblem: 'error' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DataFileError);
  return (error as Error).message;
};
const warn = (imageDir: string, documents: { docId: string; pages: number }[]) => openPageImageCatalog({ imageDir, documents, onProblem: 'warn' });

describe('openPageImageCatalog', () => {
  it('gives every page its reference: absolute folder, <doc>/page_<n>.jpg, the header’s size and the file’s bytes', async () => {
    const dir = await writePageImageFolder({ d1: 3, d2: 2 });
    const catalog = await openPageImageCatalog({ imageDir: dir, documents: [{ docId: 'd1', pages: 3 }, { docId: 'd2', pages: 2 }], onProblem: 'error' });
    expect(catalog.problems).toEqual([]);
    expect(catalog.imageDir).toBe(resolve(dir));
    expect(catalog.imageCount).toBe(5);
    expect(catalog.pages('d1').map((ref) => ref.page)).toEqual([1, 2, 3]);
    const ref = catalog.image('d1', 2)!;
    expect(ref).toEqual({ imageDir: resolve(dir), path: 'd1/page_2.jpg', docId: 'd1', page: 2, ...pageSize(2), bytes: statSync(join(dir, 'd1', 'page_2.jpg')).size });
    expect(catalog.image('d1', 4)).toBeUndefined();
    expect(catalog.image('nope', 1)).toBeUndefined();
  });

  it('refuses a missing page image, naming document, page and file', async () => {
    const dir = await writePageImageFolder({ d1: 4 });
    unlinkSync(join(dir, 'd1', 'page_3.jpg'));
    const message = await refuse(dir, [{ docId: 'd1', pages: 4 }]);
    expect(message).toContain('1 page image problem (1 missing-page)');
    expect(message).toContain(`missing page image d1 page 3 (${join(resolve(dir), 'd1', 'page_3.jpg')})`);
  });

  it('counts a missing page under warn, and that page has no reference', async () => {
    const dir = await writePageImageFolder({ d1: 4 });
    unlinkSync(join(dir, 'd1', 'page_3.jpg'));
    const catalog = await warn(dir, [{ docId: 'd1', pages: 4 }]);
    expect(catalog.problems).toMatchObject([{ kind: 'missing-page', docId: 'd1', page: 3 }]);
    expect(catalog.image('d1', 3)).toBeUndefined();
    expect(catalog.pages('d1').map((ref) => ref.page)).toEqual([1, 2, 4]);
    expect(catalog.imageCount).toBe(3);
  });

  it('refuses a truncated JPEG (the file cut short: no EOI at the end)', async () => {
    const dir = await writePageImageFolder({ d1: 2 });
    const file = join(dir, 'd1', 'page_2.jpg');
    truncateSync(file, Math.floor(statSync(file).size / 2));
    const message = await refuse(dir, [{ docId: 'd1', pages: 2 }]);
    expect(message).toMatch(/1 truncated\): truncated JPEG d1 page 2 \(.*page_2\.jpg: no EOI marker/);
    expect((await warn(dir, [{ docId: 'd1', pages: 2 }])).problems).toMatchObject([{ kind: 'truncated', docId: 'd1', page: 2 }]);
  });

  it('refuses a file named .jpg that is not a JPEG, and an empty one', async () => {
    const dir = await writePageImageFolder({ d1: 3 });
    writeFileSync(join(dir, 'd1', 'page_1.jpg'), 'this is not an image, just text with a .jpg name');
    writeFileSync(join(dir, 'd1', 'page_3.jpg'), '');
    const message = await refuse(dir, [{ docId: 'd1', pages: 3 }]);
    expect(message).toContain('2 page image problems (2 unreadable)');
    expect(message).toContain('unreadable JPEG d1 page 1');
    expect(message).toContain('no SOI marker');
    const catalog = await warn(dir, [{ docId: 'd1', pages: 3 }]);
    expect(catalog.problems.map((p) => [p.kind, p.page])).toEqual([['unreadable', 1], ['unreadable', 3]]);
    expect(catalog.problems[1]!.message).toContain('empty file');
  });

  it('refuses a JPEG whose headers hold no frame size', async () => {
    const dir = await writePageImageFolder({ d1: 1 });
    // SOI, a comment segment, then EOI: a well-formed marker stream without SOF.
    writeFileSync(join(dir, 'd1', 'page_1.jpg'), Buffer.from([0xff, 0xd8, 0xff, 0xfe, 0x00, 0x04, 0x41, 0x42, 0xff, 0xd9]));
    expect(await refuse(dir, [{ docId: 'd1', pages: 1 }])).toContain('width and height unknown');
  });

  it('refuses an image folder holding more pages than the OCR, naming both counts', async () => {
    const dir = await writePageImageFolder({ d1: 5 });
    const message = await refuse(dir, [{ docId: 'd1', pages: 4 }]);
    expect(message).toContain('1 extra-pages');
    expect(message).toContain('image folder of document d1 does not match the OCR: 5 page images for 4 OCR pages (beyond the OCR: page_5.jpg');
  });

  it('reports fewer page images than OCR pages as each missing page', async () => {
    const dir = await writePageImageFolder({ d1: 3 });
    const catalog = await warn(dir, [{ docId: 'd1', pages: 5 }]);
    expect(catalog.problems.map((p) => `${p.kind} ${p.page}`)).toEqual(['missing-page 4', 'missing-page 5']);
  });

  it('does not count images beyond a page count that is only the highest page needed (exact: false)', async () => {
    const dir = await writePageImageFolder({ d1: 5 });
    const catalog = await openPageImageCatalog({ imageDir: dir, documents: [{ docId: 'd1', pages: 3, exact: false }], onProblem: 'error' });
    expect(catalog.pages('d1')).toHaveLength(3);
  });

  it('refuses a document without an image folder', async () => {
    const dir = await writePageImageFolder({ d1: 1 });
    const message = await refuse(dir, [{ docId: 'd1', pages: 1 }, { docId: 'd9', pages: 12 }]);
    expect(message).toContain(`no image folder for document d9 (${join(resolve(dir), 'd9')}; 12 pages in the OCR)`);
  });

  it('counts problems by kind in the error and names the first few, in document and page order', async () => {
    const dir = await writePageImageFolder({ a: 6, b: 2 });
    for (const page of [2, 3, 4, 5]) unlinkSync(join(dir, 'a', `page_${page}.jpg`));
    truncateSync(join(dir, 'b', 'page_1.jpg'), 100);
    const message = await refuse(dir, [{ docId: 'a', pages: 6 }, { docId: 'b', pages: 2 }]);
    expect(message).toContain('5 page image problems (4 missing-page, 1 truncated): missing page image a page 2');
    expect(message).toMatch(/a page 2 .*a page 3 .*a page 4 .*; … 2 more/);
    expect(message).toContain('onImageProblem: warn');
  });

  it('reads the size of a progressive JPEG and of one whose SOF lies past a large APP segment', async () => {
    const dir = await writePageImageFolder({});
    const progressive = join(dir, 'progressive.jpg');
    writeFileSync(progressive, await jpeg(321, 123, { progressive: true }));
    expect(inspectJpeg(progressive)).toMatchObject({ width: 321, height: 123 });
    // An APP1 segment of 20,000 bytes right after SOI (as EXIF thumbnails make): the frame header is far past the first read.
    const plain = await jpeg(77, 55);
    const app1 = Buffer.alloc(20_000);
    app1.writeUInt16BE(0xffe1, 0);
    app1.writeUInt16BE(app1.length - 2, 2);
    const padded = join(dir, 'padded.jpg');
    writeFileSync(padded, Buffer.concat([plain.subarray(0, 2), app1, plain.subarray(2)]));
    expect(await sharp(padded).metadata()).toMatchObject({ width: 77, height: 55 });
    expect(inspectJpeg(padded)).toEqual({ width: 77, height: 55, bytes: statSync(padded).size });
  });

  it('scans a folder once per document and page count, until told to forget', async () => {
    const dir = await writePageImageFolder({ d1: 2 });
    expect((await warn(dir, [{ docId: 'd1', pages: 2 }])).problems).toEqual([]);
    unlinkSync(join(dir, 'd1', 'page_1.jpg'));
    // The same question shares the first scan (the loader's and a strategy's) ...
    expect((await warn(dir, [{ docId: 'd1', pages: 2 }])).problems).toEqual([]);
    forgetPageImageScans();
    // ... a fresh one reads the folder again.
    expect((await warn(dir, [{ docId: 'd1', pages: 2 }])).problems).toMatchObject([{ kind: 'missing-page', page: 1 }]);
  });

  it('refuses a document id that is not one path segment', async () => {
    const dir = await writePageImageFolder({});
    await expect(warn(dir, [{ docId: '../etc', pages: 1 }])).rejects.toThrow(/document id "\.\.\/etc" cannot name an image folder/);
  });
});

describe('the bundled demo page images (corpora/sources/demo-longhisdoc/LongHisDoc_IMG)', () => {
  const sample = resolve('corpora/sources/demo-longhisdoc');
  const imageDir = join(sample, 'LongHisDoc_IMG');

  it('open with zero problems against the OCR, one image per OCR page, sizes as in the files', async () => {
    const documents = await Promise.all(
      readdirSync(join(sample, 'OCR_res'))
        .filter((f) => f.endsWith('.json'))
        .map(async (f) => ({ docId: f.replace(/\.json$/, ''), pages: (await readOcrPages(join(sample, 'OCR_res', f))).length })),
    );
    const catalog = await openPageImageCatalog({ imageDir, documents, onProblem: 'error' });
    expect(catalog.problems).toEqual([]);
    expect(catalog.imageCount).toBe(documents.reduce((n, d) => n + d.pages, 0));
    for (const { docId } of documents) {
      for (const ref of catalog.pages(docId)) {
        const file = join(imageDir, ref.path);
        const meta = await sharp(file).metadata();
        expect({ width: ref.width, height: ref.height, bytes: ref.bytes }, ref.path).toEqual({ width: meta.width, height: meta.height, bytes: statSync(file).size });
      }
    }
  });

  it('stay small: each file under 80 KB, all together under 2 MB', () => {
    let total = 0;
    for (const docId of readdirSync(imageDir)) {
      for (const name of readdirSync(join(imageDir, docId))) {
        const bytes = readFileSync(join(imageDir, docId, name)).length;
        expect(bytes, `${docId}/${name}`).toBeLessThan(80_000);
        total += bytes;
      }
    }
    expect(total).toBeLessThan(2_000_000);
  });
});
