import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLongHisDoc } from '../../src/benchmarks/longhisdoc/loader.js';
import type { BenchmarkItem } from '../../src/benchmarks/types.js';
import { parseContextBlock } from '../../src/prompting/contextBlock.js';
import { messageImages, messageText, placeholderPages } from '../../src/prompting/messageContent.js';
import { strategies } from '../../src/prompting/registry.js';
import type { PromptStrategy } from '../../src/prompting/types.js';
import { planConditions, strategySpecs } from '../../src/experiment/plan.js';
import { validateExperimentConfig } from '../../src/config/load.js';
import type { RetrievedChunk } from '../../src/retrieval/types.js';

const SAMPLE = join(import.meta.dirname, '../../corpora/sources/demo-longhisdoc');
const params = { file: join(SAMPLE, 'qa.json'), ocrDir: join(SAMPLE, 'OCR_res'), imageDir: join(SAMPLE, 'LongHisDoc_IMG') };

async function items(): Promise<BenchmarkItem[]> {
  return (await loadLongHisDoc({ ...params, label: 'longhisdoc', onImageProblem: 'error' } as never)).items;
}

async function strategy(spec: Record<string, unknown>): Promise<PromptStrategy> {
  return strategies.create(spec as { name: string }, undefined);
}

const pageChunk = (docId: string, page: number, rank: number, text = `第${page}页的文字。`): RetrievedChunk => ({
  id: `pages:${docId}-p${page}:0`,
  docId,
  title: '《書》',
  text,
  meta: { page, pages: [page] },
  score: 1 / rank,
  rank,
});

describe('image input over the item\'s pages (longhisdoc-full, input: image)', () => {
  it('shows one image per input page, in page order, each under its page header', async () => {
    const all = await items();
    const full = await strategy({ name: 'longhisdoc-full', input: 'image' });
    await full.prepare!(all);
    for (const item of all.slice(0, 5)) {
      const built = full.build({ item, context: null });
      const user = built.messages.at(-1)!;
      const images = messageImages(user);
      expect(images.map((i) => i.page)).toEqual([...item.inputPages!].sort((a, b) => a - b));
      expect(images.every((i) => i.docId === item.docId && i.width > 0 && i.bytes > 0)).toBe(true);
      // In text, each page entry is its header and its image, nothing of the OCR.
      const entries = parseContextBlock(messageText(user));
      expect(entries.map((e) => placeholderPages(e.text)[0]?.page)).toEqual(images.map((i) => i.page));
      expect(entries.every((e) => e.text === placeholderPages(e.text).map((p) => `［图像：${p.docId} 第${p.page}页］`).join('\n'))).toBe(true);
      expect(built.contextIds).toEqual(images.map((i) => `${item.docId}-p${i.page}`));
    }
  });

  it('follows each image with its OCR text in image+text mode', async () => {
    const all = await items();
    const both = await strategy({ name: 'longhisdoc-full', input: 'image+text' });
    const text = await strategy({ name: 'longhisdoc-full' });
    await both.prepare!(all);
    await text.prepare!(all);
    const item = all[0]!;
    const ocrEntries = parseContextBlock(messageText(text.build({ item, context: null }).messages.at(-1)!));
    const entries = parseContextBlock(messageText(both.build({ item, context: null }).messages.at(-1)!));
    for (const ocr of ocrEntries) {
      const same = entries.find((e) => e.header === ocr.header)!;
      expect(same.text.split('\n')[0]).toMatch(/^［图像：/);
      expect(same.text).toContain(ocr.text);
    }
  });

  it('cuts to maxImages, later pages first, and counts what it cut', async () => {
    const all = await items();
    const whole = await strategy({ name: 'longhisdoc-full', input: 'image', pages: 'all', maxImages: 3 });
    await whole.prepare!(all);
    const item = all[0]!;
    const built = whole.build({ item, context: null });
    expect(messageImages(built.messages.at(-1)!).map((i) => i.page)).toEqual([1, 2, 3]);
    expect(built.truncated).toBeGreaterThan(0);
  });

  it('refuses an item without page images, naming the setting to add', async () => {
    const bare = (await loadLongHisDoc({ file: params.file, ocrDir: params.ocrDir, label: 'longhisdoc', onImageProblem: 'error' } as never)).items;
    const full = await strategy({ name: 'longhisdoc-full', input: 'image' });
    await expect(full.prepare!(bare)).rejects.toThrow(/imageDir/);
  });
});

describe('RAG over pages (page-rag)', () => {
  it('gives the retrieved pages as images in rank order, the page images of the chunk\'s own book', async () => {
    const all = await items();
    const rag = await strategy({ name: 'page-rag' });
    await rag.prepare!(all);
    const item = all.find((i) => i.docId === '90002')!;
    const built = rag.build({ item, context: [pageChunk('90002', 5, 2), pageChunk('90002', 2, 1), pageChunk('90002', 7, 3)] });
    const user = built.messages.at(-1)!;
    expect(messageImages(user).map((i) => i.page)).toEqual([2, 5, 7]);
    expect(messageText(user)).not.toContain('第2页的文字');
    expect(built.contextIds).toEqual(['pages:90002-p2:0', 'pages:90002-p5:0', 'pages:90002-p7:0']);
  });

  it('shows images and their OCR text with input: image+text, and text only with input: text', async () => {
    const all = await items();
    const item = all.find((i) => i.docId === '90002')!;
    const context = [pageChunk('90002', 2, 1), pageChunk('90002', 5, 2)];
    const both = await strategy({ name: 'page-rag', input: 'image+text' });
    await both.prepare!(all);
    const bothUser = both.build({ item, context }).messages.at(-1)!;
    expect(messageImages(bothUser)).toHaveLength(2);
    expect(messageText(bothUser)).toContain('第5页的文字');
    const text = await strategy({ name: 'page-rag', input: 'text' });
    await text.prepare!(all);
    const textUser = text.build({ item, context }).messages.at(-1)!;
    expect(typeof textUser.content).toBe('string');
    expect(textUser.content).toContain('第2页的文字');
  });

  it('runs at 1, 3, 5 and 10 pages unless the config names depths, and an entry\'s own k wins', async () => {
    const base = {
      name: 'x',
      benchmark: { name: 'longhisdoc', ...params },
      retrieval: { retriever: { name: 'bm25', index: 'indexes/none' } },
      models: [{ name: 'extractive' }],
    };
    const methodOf = async (spec: { name: string }) => strategies.create(spec, undefined);
    const plan = async (config: Record<string, unknown>) => {
      const parsed = validateExperimentConfig(config, 'test.yaml');
      const made = new Map<string, PromptStrategy>();
      for (const { spec, path } of strategySpecs(parsed)) made.set(path, await methodOf(spec));
      return planConditions(parsed, (_spec, path) => made.get(path)!).map((c) => c.name);
    };
    expect(await plan({ ...base, strategies: ['closed-book', 'page-rag'] })).toEqual(['closed-book', 'page-rag@1', 'page-rag@3', 'page-rag@5', 'page-rag@10']);
    expect(await plan({ ...base, retrieval: { ...base.retrieval, k: [2] }, strategies: ['page-rag'] })).toEqual(['page-rag@2']);
    expect(await plan({ ...base, retrieval: { ...base.retrieval, k: [10, 20] }, strategies: ['rag', { name: 'page-rag', k: [1, 3] }] })).toEqual(['rag@10', 'rag@20', 'page-rag@1', 'page-rag@3']);
    await expect(plan({ ...base, strategies: ['rag'] })).rejects.toThrow(/no depth is given/);
  });
});
