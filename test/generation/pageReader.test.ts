import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, DataFileError } from '../../src/errors.js';
import { ExtractiveGenerator, ExtractiveParamsSchema } from '../../src/generation/extractive.js';
import { PageReaderGenerator, PageReaderParamsSchema } from '../../src/generation/pageReader.js';
import { generators } from '../../src/generation/registry.js';
import { formatContextBlock } from '../../src/prompting/contextBlock.js';
import { messageText } from '../../src/prompting/messageContent.js';
import type { ChatMessage, PageImageRef } from '../../src/prompting/types.js';
import { imagePrompt } from './pageScanFiles.js';

const OCR = ['開寶三年，詔修太祖實錄。', '此書刻於嘉靖十五年，藏於天一閣。', '卷末有跋，不著撰人。'];
const page = (p: number): PageImageRef => ({ imageDir: '/scans', path: `90003/page_${p}.jpg`, docId: '90003', page: p, width: 1500, height: 2200, bytes: 1 });
const QUESTION = '此書刻於何年？';

describe('the page-reader stand-in', () => {
  let ocrDir: string;
  let reader: PageReaderGenerator;
  beforeAll(() => {
    ocrDir = join(mkdtempSync(join(tmpdir(), 'hisrag-page-reader-')), 'OCR_res');
    mkdirSync(ocrDir);
    writeFileSync(join(ocrDir, '90003.json'), JSON.stringify(Object.fromEntries(OCR.map((punc, i) => [String(i), { punc }]))));
    reader = new PageReaderGenerator(PageReaderParamsSchema.parse({ ocrDir }));
  });

  it('reads each image it was shown as its page’s OCR text, and answers as extractive answers the OCR prompt', async () => {
    const shown = imagePrompt(QUESTION, [page(1), page(2)]);
    const read = await reader.read(messageText(shown[1]!));
    expect(read).toContain(OCR[0]);
    expect(read).toContain(OCR[1]);
    expect(read).not.toContain('［图像');
    const answer = await reader.generate(shown);
    const ocrPrompt: ChatMessage[] = [
      { role: 'system', content: '你是古籍助手。' },
      { role: 'user', content: `${formatContextBlock([1, 2].map((p) => ({ title: '測試書', pages: [p], text: OCR[p - 1]! })))}\n\n【问题】${QUESTION}` },
    ];
    const extractive = new ExtractiveGenerator(ExtractiveParamsSchema.parse({}));
    expect(answer.text).toContain('嘉靖十五年');
    expect(answer.text).toBe((await extractive.generate(ocrPrompt)).text);
  });

  it('sees nothing of pages it was not shown', async () => {
    const answer = await reader.generate(imagePrompt(QUESTION, [page(1), page(3)]));
    expect(answer.text).not.toContain('嘉靖');
  });

  it('does not read a page twice where the entry already carries its OCR text (image + OCR prompts)', async () => {
    const both = imagePrompt(QUESTION, [page(2)], (p) => OCR[p.page - 1]!);
    const read = await reader.read(messageText(both[1]!));
    expect(read.split(OCR[1]!).length - 1).toBe(1);
    expect(read).not.toContain('［图像');
    expect((await reader.generate(both)).text).toContain('嘉靖十五年');
  });

  it('refuses an image of a page the OCR file does not have, naming file, document and page', async () => {
    const shown = imagePrompt(QUESTION, [page(7)]);
    await expect(reader.generate(shown)).rejects.toBeInstanceOf(DataFileError);
    await expect(reader.generate(shown)).rejects.toThrow(/90003\.json: document 90003 has no OCR for page 7/);
  });

  it('counts image tokens as the model it stands in for (Qwen2.5-VL at 1,003,520 pixels by default)', () => {
    // 1500×2200 → 827×1213 within 1003520; smart_resize rounds to 840×1204 > 1003520, so floors to 812×1204: 29 × 43 + 2.
    expect(reader.imageTokens(page(1))).toBe(29 * 43 + 2);
  });

  it('is registered, and says what it is in its description', async () => {
    const created = await generators.create({ name: 'page-reader', ocrDir }, undefined);
    expect(created.describe()).toMatchObject({ name: 'page-reader', note: expect.stringContaining('offline stand-in for a vision-language model') });
  });

  it('the extractive generator refuses an image prompt rather than ignore the images', async () => {
    const extractive = new ExtractiveGenerator(ExtractiveParamsSchema.parse({}));
    const refused = extractive.generate(imagePrompt(QUESTION, [page(1), page(2)]));
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(/generator "extractive" \(extractive\) was given a prompt with 2 page images, but it reads text only.*page-reader/);
  });
});
