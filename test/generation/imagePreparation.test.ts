import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { DataFileError } from '../../src/errors.js';
import { ImagePreparer } from '../../src/generation/imagePreparation.js';
import { preparedSize } from '../../src/corpus/pageImageSize.js';
import { ImageSettingsSchema } from '../../src/generation/imageTokens.js';
import type { PageImageRef } from '../../src/prompting/types.js';
import { writeScans } from './pageScanFiles.js';

describe('page image preparation', () => {
  let dir: string;
  let pages: PageImageRef[];
  const preparerIn = (cache: string, fields: Record<string, unknown> = {}) =>
    new ImagePreparer(ImageSettingsSchema.parse({ maxPixels: 400_000, tokens: { formula: 'qwen-vl' }, cache, ...fields }));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-image-prep-'));
    pages = await writeScans(join(dir, 'scans'), '90002', [1, 2], { width: 1200, height: 1800 });
  }, 30_000);

  it('resizes to the size the token count assumes and encodes in the configured format', async () => {
    for (const format of ['jpeg', 'png', 'webp'] as const) {
      const prepared = await preparerIn(join(dir, `${format}.sqlite`), { format }).prepare(pages[0]!);
      const meta = await sharp(prepared.bytes).metadata();
      expect(meta.format).toBe(format);
      expect({ width: meta.width, height: meta.height }).toEqual(preparedSize(pages[0]!, { maxPixels: 400_000 }));
      expect(prepared.mime).toBe(`image/${format}`);
    }
  });

  it('prepares a page once: a second preparer on the same store, and a moved copy of the file, are served from it', async () => {
    const cache = join(dir, 'shared.sqlite');
    const first = preparerIn(cache);
    const a = await first.prepare(pages[1]!);
    expect(first.stats).toEqual({ prepared: 1, cacheHits: 0 });
    const second = preparerIn(cache);
    const moved = join(dir, 'moved');
    writeScanCopy(pages[1]!, moved);
    const b = await second.prepare({ ...pages[1]!, imageDir: moved });
    expect(second.stats).toEqual({ prepared: 0, cacheHits: 1 });
    expect(b.bytes.equals(a.bytes)).toBe(true);
    expect(b.sourceHash).toBe(a.sourceHash);
    // Other settings are other bytes.
    const smaller = await preparerIn(cache, { maxPixels: 100_000 }).prepare(pages[1]!);
    expect(smaller.bytes.length).toBeLessThan(a.bytes.length);
  });

  it('a missing page image is a DataFileError naming document, page and file', async () => {
    const missing = { ...pages[0]!, page: 9, path: '90002/page_9.jpg' };
    await expect(preparerIn(join(dir, 'c1.sqlite')).prepare(missing)).rejects.toThrow(DataFileError);
    await expect(preparerIn(join(dir, 'c1.sqlite')).prepare(missing)).rejects.toThrow(/document 90002 page 9 \(.*90002\/page_9\.jpg\): the page image is missing/);
    expect(() => preparerIn(join(dir, 'c1.sqlite')).sourceHashSync(missing)).toThrow(/document 90002 page 9 .*missing/);
  });

  it('a truncated or corrupt JPEG is a DataFileError naming document and page', async () => {
    const broken = join(dir, 'broken');
    const bytes = readFileSync(join(dir, 'scans', pages[0]!.path));
    writeScanCopy(pages[0]!, broken, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expect(preparerIn(join(dir, 'c2.sqlite')).prepare({ ...pages[0]!, imageDir: broken })).rejects.toThrow(/document 90002 page 1 .*not a readable image/);
    writeScanCopy(pages[0]!, broken, Buffer.from('not a jpeg at all'));
    await expect(preparerIn(join(dir, 'c3.sqlite')).prepare({ ...pages[0]!, imageDir: broken })).rejects.toThrow(/document 90002 page 1 .*not a readable image/);
  });

  it('a file whose size differs from what the corpus recorded is refused (it changed since)', async () => {
    await expect(preparerIn(join(dir, 'c4.sqlite')).prepare({ ...pages[0]!, width: 1000 })).rejects.toThrow(/the image is 1200×1800, the corpus recorded 1000×1800/);
  });
});

function writeScanCopy(page: PageImageRef, imageDir: string, bytes?: Buffer): void {
  const target = join(imageDir, page.path);
  mkdirSync(join(target, '..'), { recursive: true });
  writeFileSync(target, bytes ?? readFileSync(join(page.imageDir, page.path)));
}
