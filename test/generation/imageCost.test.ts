import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchmarkItem } from '../../src/benchmarks/types.js';
import { imageTokensOf, ImageSettingsSchema } from '../../src/generation/imageTokens.js';
import { OpenAIGenerator, OpenAIParamsSchema } from '../../src/generation/openai.js';
import { PageReaderGenerator, PageReaderParamsSchema } from '../../src/generation/pageReader.js';
import { MethodRun } from '../../src/methods/methodRun.js';
import { TraceStepSchema } from '../../src/runFiles/trace.js';
import { messageTokens } from '../../src/prompting/messageContent.js';
import { estimateTokens } from '../../src/text/tokenCounter.js';
import type { PageImageRef } from '../../src/prompting/types.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { imagePrompt, writeScans } from './pageScanFiles.js';

const item: BenchmarkItem = { id: 'q1', benchmark: 'longhisdoc', kind: 'longhisdoc', question: '此書刻於何年？', category: 'Single Page', docId: '90004', meta: {} };
const IMAGES = { maxPixels: 600_000, tokens: { formula: 'qwen-vl' } } as const;
const PRICE = { inputPerMillion: 2, outputPerMillion: 6 };

describe('image tokens in a method run’s cost', () => {
  let dir: string;
  let pages: PageImageRef[];
  let server: OpenAIServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-image-cost-'));
    pages = await writeScans(join(dir, 'scans'), '90004', [1, 2, 3], { width: 1200, height: 1800 });
    mkdirSync(join(dir, 'OCR_res'));
    writeFileSync(join(dir, 'OCR_res', '90004.json'), JSON.stringify({ 0: { punc: '序。' }, 1: { punc: '此書刻於嘉靖十五年。' }, 2: { punc: '跋。' } }));
    server = await startOpenAIServer({ respond: () => '嘉靖十五年' });
  }, 30_000);
  afterAll(() => server.close());

  const formula = () => pages.reduce((n, p) => n + imageTokensOf(p, ImageSettingsSchema.parse(IMAGES)), 0);

  it('with the endpoint’s usage: prompt tokens as reported, the images and their tokens by the formula recorded per step and per answer', async () => {
    const generator = new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: server.url, model: 'qwen2.5-vl', retries: 0, images: { ...IMAGES, cache: join(dir, 'images.sqlite') } }));
    const run = new MethodRun({ item, k: 3, generator, countTokens: estimateTokens, price: PRICE });
    await run.generate('answer', imagePrompt(item.question, pages), { final: true });
    const cost = run.cost();
    const step = TraceStepSchema.parse(run.trace[0]);
    // The test server reports text characters + 100 per image.
    const reported = step.usage!.promptTokens;
    expect(reported).toBeGreaterThan(300);
    expect(cost).toMatchObject({ promptTokens: reported, images: 3, imageTokens: formula() });
    expect(cost.estimatedTokens).toBeUndefined();
    expect(step.usage).toMatchObject({ images: 3, imageTokens: formula() });
    expect(step.messages![1]!.images!.map((i) => i.page)).toEqual([1, 2, 3]);
    expect(cost.price).toBeCloseTo((reported * PRICE.inputPerMillion + cost.completionTokens * PRICE.outputPerMillion) / 1e6, 12);
  });

  it('without usage (the offline stand-in): prompt tokens are the text’s estimate plus the images’ tokens, and the price follows', async () => {
    const generator = new PageReaderGenerator(PageReaderParamsSchema.parse({ ocrDir: join(dir, 'OCR_res'), images: IMAGES }));
    const messages = imagePrompt(item.question, pages);
    const run = new MethodRun({ item, k: 3, generator, countTokens: estimateTokens, price: PRICE });
    const result = await run.generate('answer', messages, { final: true });
    expect(result.text).toContain('嘉靖十五年');
    const text = messages.reduce((n, m) => n + messageTokens(m, estimateTokens, () => 0), 0);
    const cost = run.cost();
    expect(cost).toMatchObject({ estimatedTokens: true, images: 3, imageTokens: formula(), promptTokens: text + formula() });
    expect(cost.price).toBeCloseTo(((text + formula()) * PRICE.inputPerMillion + cost.completionTokens * PRICE.outputPerMillion) / 1e6, 12);
  });

  it('text-only prompts cost exactly what they did (no image fields)', async () => {
    const generator = new PageReaderGenerator(PageReaderParamsSchema.parse({ ocrDir: join(dir, 'OCR_res') }));
    const run = new MethodRun({ item, k: 0, generator, countTokens: estimateTokens });
    await run.generate('answer', [{ role: 'user', content: '【问题】此書刻於何年？' }], { final: true });
    expect(run.cost().promptTokens).toBe(estimateTokens('【问题】此書刻於何年？'));
    expect(run.cost().images).toBeUndefined();
    expect(run.trace[0]!.usage).toEqual({ promptTokens: estimateTokens('【问题】此書刻於何年？'), completionTokens: expect.any(Number) });
  });
});
