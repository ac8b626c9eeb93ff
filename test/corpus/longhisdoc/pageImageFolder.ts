import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';

/** Page size the helper gives page n of a document: different per page, so that a test sees each file's own header read. */
export const pageSize = (page: number) => ({ width: 40 + page, height: 60 + 2 * page });

/** A real JPEG (sharp-encoded) of the given size. */
export async function jpeg(width: number, height: number, options: { progressive?: boolean } = {}): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 234, g: 220, b: 188 } } })
    .jpeg({ quality: 70, progressive: options.progressive ?? false })
    .toBuffer();
}

/** `<root>/<docId>/page_<n>.jpg` for pages 1..n of each document, in a new temp folder unless `root` is given. */
export async function writePageImageFolder(pagesByDoc: Record<string, number>, root = mkdtempSync(join(tmpdir(), 'hisrag-img-'))): Promise<string> {
  for (const [docId, pages] of Object.entries(pagesByDoc)) {
    mkdirSync(join(root, docId), { recursive: true });
    for (let page = 1; page <= pages; page++) {
      const { width, height } = pageSize(page);
      writeFileSync(join(root, docId, `page_${page}.jpg`), await jpeg(width, height));
    }
  }
  return root;
}

/** `OCR_res/<docId>.json` with `pages` pages of text (keys "0", "1", ...), in a new temp folder. */
export function writeOcrFolder(pagesByDoc: Record<string, number>, root = mkdtempSync(join(tmpdir(), 'hisrag-ocr-'))): string {
  mkdirSync(root, { recursive: true });
  for (const [docId, pages] of Object.entries(pagesByDoc)) {
    const content: Record<string, { punc: string }> = {};
    for (let i = 0; i < pages; i++) content[String(i)] = { punc: `${docId}第${i + 1}页正文。` };
    writeFileSync(join(root, `${docId}.json`), JSON.stringify(content));
  }
  return root;
}
