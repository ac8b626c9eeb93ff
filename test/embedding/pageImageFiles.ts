import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import type { PageImageRef } from '../../src/runFiles/pageImage.js';

export type Rgb = { r: number; g: number; b: number };

/**
 * Writes small page scans as LongHisDoc lays them out (`<imageDir>/<docId>/page_<n>.jpg`): a paper
 * background in the given colour with a few dark "columns of text" (so pages differ in layout too).
 */
export async function writePageImages(imageDir: string, pages: { docId: string; page: number; colour: Rgb }[]): Promise<PageImageRef[]> {
  const refs: PageImageRef[] = [];
  for (const { docId, page, colour } of pages) {
    const width = 60;
    const height = 90;
    const columns = Array.from({ length: 1 + (page % 4) }, (_, i) => ({
      input: { create: { width: 4, height: 70, channels: 3 as const, background: { r: 30, g: 30, b: 30 } } },
      left: 50 - i * 10,
      top: 10,
    }));
    const bytes = await sharp({ create: { width, height, channels: 3, background: colour } }).composite(columns).jpeg({ quality: 90 }).toBuffer();
    const path = `${docId}/page_${page}.jpg`;
    await mkdir(join(imageDir, docId), { recursive: true });
    await writeFile(join(imageDir, path), bytes);
    refs.push({ imageDir, path, docId, page, width, height, bytes: bytes.length });
  }
  return refs;
}

export const RED: Rgb = { r: 230, g: 60, b: 50 };
export const GREEN: Rgb = { r: 60, g: 200, b: 70 };
export const BLUE: Rgb = { r: 50, g: 70, b: 220 };
export const PAPER: Rgb = { r: 235, g: 225, b: 200 };
