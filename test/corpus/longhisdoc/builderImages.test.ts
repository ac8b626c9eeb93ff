import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Chunk, readChunks, readCorpusManifest } from '../../../src/runFiles/corpusFiles.js';
import { buildCorpus } from '../../../src/corpus/build.js';
import { forgetPageImageScans } from '../../../src/corpus/longhisdoc/pageImages.js';
import { DataFileError } from '../../../src/errors.js';
import { pageSize, writeOcrFolder, writePageImageFolder } from './pageImageFolder.js';

const parent = mkdtempSync(join(tmpdir(), 'hisrag-lhd-build-images-'));
const fresh = () => mkdtempSync(join(parent, 'dir-'));
afterEach(() => forgetPageImageScans());
afterAll(() => rmSync(parent, { recursive: true, force: true }));

/** Every file under `dir`, recursively. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));

async function build(baseDir: string, builder: Record<string, unknown>) {
  const out = join(baseDir, 'corpus');
  const manifest = await buildCorpus(
    { name: 'pages', builder: { name: 'longhisdoc-ocr', input: 'OCR_res', ...builder }, out, chunking: { maxSize: 400 } },
    { baseDir },
  );
  const chunks: Chunk[] = [];
  for await (const chunk of readChunks(out)) chunks.push(chunk);
  return { out, manifest, chunks };
}

describe('longhisdoc-ocr builder with imageDir', () => {
  it('records each page’s image on its chunk and the absolute image folder in the manifest, copying nothing', async () => {
    const base = fresh();
    writeOcrFolder({ d1: 3, d2: 2 }, join(base, 'OCR_res'));
    const imageDir = await writePageImageFolder({ d1: 3, d2: 2 }, join(base, 'IMG'));
    const { out, manifest, chunks } = await build(base, { imageDir: 'IMG' });
    expect(manifest.imageDir).toBe(resolve(imageDir));
    expect((await readCorpusManifest(out)).imageDir).toBe(resolve(imageDir));
    const p2 = chunks.find((c) => c.id === 'pages:d1-p2:0')!;
    expect(p2.meta.image).toEqual({ path: 'd1/page_2.jpg', ...pageSize(2), bytes: statSync(join(imageDir, 'd1', 'page_2.jpg')).size });
    expect(chunks.every((c) => (c.meta.image as { path: string }).path === `${c.docId}/page_${c.meta.page}.jpg`)).toBe(true);
    expect(filesUnder(out).map((f) => relative(out, f)).filter((f) => !/^(chunks\.jsonl|documents\.jsonl|manifest\.json)$/.test(f))).toEqual([]);
    expect(manifest.counts.pagesWithoutImage).toBeUndefined();
  });

  it('gives page windows the images of their pages, in page order', async () => {
    const base = fresh();
    writeOcrFolder({ d1: 3 }, join(base, 'OCR_res'));
    await writePageImageFolder({ d1: 3 }, join(base, 'IMG'));
    const { chunks } = await build(base, { imageDir: 'IMG', windows: { size: 2 } });
    const window = chunks.find((c) => c.id === 'pages:d1-p2-3:0')!;
    expect((window.meta.images as { page: number; path: string }[]).map((i) => [i.page, i.path])).toEqual([
      [2, 'd1/page_2.jpg'],
      [3, 'd1/page_3.jpg'],
    ]);
  });

  it('refuses a page without its image before writing a chunk, naming document and page', async () => {
    const base = fresh();
    writeOcrFolder({ d1: 3 }, join(base, 'OCR_res'));
    const imageDir = await writePageImageFolder({ d1: 3 }, join(base, 'IMG'));
    unlinkSync(join(imageDir, 'd1', 'page_2.jpg'));
    const error = await build(base, { imageDir: 'IMG' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataFileError);
    expect((error as Error).message).toContain('missing page image d1 page 2');
    expect(existsSync(join(base, 'corpus'))).toBe(false);
    expect(readFileSync(join(base, 'corpus.partial', 'chunks.jsonl'), 'utf8')).toBe('');
    // Nothing to resume: once the image is back, a plain rebuild goes through.
    await writePageImageFolder({ d1: 3 }, imageDir);
    forgetPageImageScans();
    expect((await build(base, { imageDir: 'IMG' })).chunks).toHaveLength(3);
  });

  it('counts pages without a usable image under onImageProblem: warn, and leaves meta.image off them', async () => {
    const base = fresh();
    writeOcrFolder({ d1: 3 }, join(base, 'OCR_res'));
    await writePageImageFolder({ d1: 2 }, join(base, 'IMG'));
    const { manifest, chunks } = await build(base, { imageDir: 'IMG', onImageProblem: 'warn' });
    expect(manifest.counts.pagesWithoutImage).toBe(1);
    expect(chunks.map((c) => [c.meta.page, c.meta.image !== undefined])).toEqual([
      [1, true],
      [2, true],
      [3, false],
    ]);
  });

  it('builds the bundled sample with its committed page images and no problem', async () => {
    const sample = resolve('corpora/sources/demo-longhisdoc');
    const base = fresh();
    const out = join(base, 'corpus');
    const manifest = await buildCorpus({
      name: 'demo',
      builder: { name: 'longhisdoc-ocr', input: join(sample, 'OCR_res'), imageDir: join(sample, 'LongHisDoc_IMG'), qaFile: join(sample, 'qa.json') },
      out,
      chunking: { maxSize: 2000 },
    });
    expect(manifest.imageDir).toBe(join(sample, 'LongHisDoc_IMG'));
    expect(manifest.counts.pagesWithoutImage).toBeUndefined();
    const chunks: Chunk[] = [];
    for await (const chunk of readChunks(out)) chunks.push(chunk);
    // Every page with text is a chunk, and each carries its scan.
    expect(chunks.length).toBe(30);
    expect(chunks.every((c) => existsSync(join(sample, 'LongHisDoc_IMG', (c.meta.image as { path: string }).path)))).toBe(true);
  });
});
