import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { planPromptTokens } from '../../src/estimate/estimateRun.js';
import { ExtractiveGenerator, ExtractiveParamsSchema } from '../../src/generation/extractive.js';
import { imageTokensOf, ImageSettingsSchema } from '../../src/generation/imageTokens.js';
import { OpenAIGenerator, OpenAIParamsSchema } from '../../src/generation/openai.js';
import { MethodRun } from '../../src/methods/methodRun.js';
import { PageReaderGenerator, PageReaderParamsSchema } from '../../src/generation/pageReader.js';
import { estimateTokens } from '../../src/text/tokenCounter.js';
import type { PageImageRef } from '../../src/prompting/types.js';
import { imagePrompt } from '../generation/pageScanFiles.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// References only: the plan counts from the recorded sizes, without reading a file.
const pages: PageImageRef[] = [1, 2, 3].map((page) => ({ imageDir: '/nowhere', path: `90005/page_${page}.jpg`, docId: '90005', page, width: 1500 + page * 10, height: 2200, bytes: 1 }));
const prompt = imagePrompt('此書刻於何年？', pages);

describe('the dry-run plan counts page images', () => {
  it('with the generator’s formula, without reading the images', () => {
    const tiles = ImageSettingsSchema.parse({ maxSide: 2048, tokens: { formula: 'openai-tiles', detail: 'high' } });
    const generator = new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: 'http://127.0.0.1:9/v1', model: 'gpt-4o', images: tiles }));
    const counted = planPromptTokens(prompt, generator);
    const images = pages.reduce((n, p) => n + imageTokensOf(p, tiles), 0);
    // 1510..1530 × 2200 → shortest side 768: 768 × ~1100: 2 × 3 tiles = 1105 each.
    expect(images).toBe(3 * 1105);
    expect(counted.images).toBe(images);
    expect(counted.total).toBeGreaterThan(images);
  });

  it('as the run counts them when the endpoint reports no usage', async () => {
    const ocrDir = mkdtempSync(join(tmpdir(), 'hisrag-plan-images-'));
    writeFileSync(join(ocrDir, '90005.json'), JSON.stringify({ 0: { punc: '甲。' }, 1: { punc: '乙。' }, 2: { punc: '丙。' } }));
    const generator = new PageReaderGenerator(PageReaderParamsSchema.parse({ ocrDir }));
    const run = new MethodRun({ item: { id: 'q', benchmark: 'longhisdoc', kind: 'longhisdoc', question: '此書刻於何年？', category: 'x', meta: {} }, k: 3, generator, countTokens: estimateTokens });
    await run.generate('answer', prompt, { final: true });
    expect(planPromptTokens(prompt, generator).total).toBe(run.cost().promptTokens);
  });

  it('refuses, before any call, a model that cannot see images', () => {
    expect(() => planPromptTokens(prompt, new ExtractiveGenerator(ExtractiveParamsSchema.parse({})))).toThrow(ConfigError);
    expect(() => planPromptTokens(prompt, new ExtractiveGenerator(ExtractiveParamsSchema.parse({})))).toThrow(/3 page images, but it reads text only/);
  });
});
