import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pageLikeScan } from '../../scripts/pageLikeScan.js';
import type { ChatMessage, ContentPart, PageImageRef } from '../../src/prompting/types.js';
import { formatContextHeader } from '../../src/prompting/contextBlock.js';

/** Writes page-like scans as LongHisDoc lays them out (`<imageDir>/<docId>/page_<n>.jpg`) and returns their references. */
export async function writeScans(imageDir: string, docId: string, pages: number[], size = { width: 1500, height: 2200 }): Promise<PageImageRef[]> {
  await mkdir(join(imageDir, docId), { recursive: true });
  const refs: PageImageRef[] = [];
  for (const page of pages) {
    const bytes = await pageLikeScan(size.width, size.height, Number(docId) * 1000 + page);
    const path = `${docId}/page_${page}.jpg`;
    await writeFile(join(imageDir, path), bytes);
    refs.push({ imageDir, path, docId, page, ...size, bytes: bytes.length });
  }
  return refs;
}

/** An image-input prompt laid out as the image strategies do: per page its header, its image (and, with `ocr`, its text). */
export function imagePrompt(question: string, pages: PageImageRef[], ocr?: (page: PageImageRef) => string): ChatMessage[] {
  const parts: ContentPart[] = [];
  pages.forEach((image, i) => {
    parts.push({ type: 'text', text: `${i === 0 ? '' : '\n\n'}${formatContextHeader(i + 1, { title: '測試書', pages: [image.page] })}\n` });
    parts.push({ type: 'image', image });
    if (ocr) parts.push({ type: 'text', text: `\n${ocr(image)}` });
  });
  parts.push({ type: 'text', text: `\n【资料结束】\n\n【问题】${question}` });
  return [
    { role: 'system', content: '你是古籍助手。' },
    { role: 'user', content: parts },
  ];
}
