import { describe, expect, it } from 'vitest';
import { preparedSize } from '../../src/corpus/pageImageSize.js';
import { ImageSettingsSchema, ImageTokensSchema, imageTokensOf, smartResize, tokensForSize } from '../../src/generation/imageTokens.js';
import type { PageImageRef } from '../../src/prompting/types.js';

const page = (width: number, height: number): PageImageRef => ({ imageDir: '/scans', path: `90001/page_1.jpg`, docId: '90001', page: 1, width, height, bytes: 1 });
const qwen = (fields: Record<string, unknown> = {}) => ImageTokensSchema.parse({ formula: 'qwen-vl', ...fields });

describe('Qwen-VL image tokens (smart_resize, 28-pixel patches)', () => {
  it('1000×1500 with maxPixels 1003520: scaled down to 812×1204 by floor, 29 × 43 patches + 2 = 1249 tokens', () => {
    // beta = sqrt(1.5e6 / 1003520) = 1.2226; 1500 / beta / 28 = 43.8 → 43 · 28 = 1204; 1000 / beta / 28 = 29.2 → 29 · 28 = 812.
    expect(smartResize(1500, 1000, 28, 3136, 1_003_520)).toEqual({ height: 1204, width: 812 });
    expect(tokensForSize({ width: 1000, height: 1500 }, qwen({ maxPixels: 1_003_520 }))).toBe(1249);
  });

  it('100×100 within the bounds: each side rounded to 112, 4 × 4 + 2 = 18 tokens', () => {
    expect(tokensForSize({ width: 100, height: 100 }, qwen())).toBe(18);
  });

  it('20×30, under minPixels 3136: scaled up by ceil to 56×84, 2 × 3 + 2 = 8 tokens', () => {
    // beta = sqrt(3136 / 600) = 2.286; 30 · beta / 28 = 2.45 → 3; 20 · beta / 28 = 1.63 → 2.
    expect(smartResize(30, 20, 28, 3136, 12_845_056)).toEqual({ height: 84, width: 56 });
    expect(tokensForSize({ width: 20, height: 30 }, qwen())).toBe(8);
  });

  it('rounds halves to even as Python does (70 / 28 = 2.5 → 2 patches, not 3)', () => {
    expect(smartResize(70, 28, 28, 1, 12_845_056)).toEqual({ height: 56, width: 28 });
    expect(smartResize(98, 28, 28, 1, 12_845_056)).toEqual({ height: 112, width: 28 }); // 3.5 → 4
  });

  it('takes another patch size (Qwen3-VL: 32)', () => {
    expect(tokensForSize({ width: 640, height: 960 }, qwen({ patch: 32 }))).toBe(20 * 30 + 2);
  });
});

describe('OpenAI image tokens (512-pixel tiles)', () => {
  const tiles = (detail: 'high' | 'low') => ImageTokensSchema.parse({ formula: 'openai-tiles', detail });

  it('1024×1024 high: shortest side to 768, 2 × 2 tiles: 85 + 4 · 170 = 765', () => {
    expect(tokensForSize({ width: 1024, height: 1024 }, tiles('high'))).toBe(765);
  });

  it('2048×4096 high: fit in 2048² (1024×2048), shortest side 768 (768×1536), 2 × 3 tiles: 1105', () => {
    expect(tokensForSize({ width: 2048, height: 4096 }, tiles('high'))).toBe(1105);
  });

  it('a small image is not scaled up: 500×300 is one tile, 255', () => {
    expect(tokensForSize({ width: 500, height: 300 }, tiles('high'))).toBe(255);
  });

  it('low detail is 85 whatever the size', () => {
    expect(tokensForSize({ width: 4000, height: 3000 }, tiles('low'))).toBe(85);
  });
});

describe('fixed image tokens', () => {
  it('counts the configured number for every image', () => {
    expect(tokensForSize({ width: 10, height: 10 }, ImageTokensSchema.parse({ formula: 'fixed', tokens: 576 }))).toBe(576);
  });
});

describe('the prepared size', () => {
  it('scales a 1500×2200 page down within maxPixels, keeping its aspect ratio, and counts tokens on that size', () => {
    const settings = ImageSettingsSchema.parse({ maxPixels: 1_003_520, tokens: { formula: 'qwen-vl' } });
    const size = preparedSize(page(1500, 2200), settings);
    // scale = sqrt(1003520 / 3.3e6) = 0.55144: 827 × 1213, each side floored.
    expect(size).toEqual({ width: 827, height: 1213 });
    expect(size.width * size.height).toBeLessThanOrEqual(1_003_520);
    // smart_resize of 827×1213: 30 × 43 patches (827 / 28 = 29.5 → 30, 1213 / 28 = 43.3 → 43).
    expect(imageTokensOf(page(1500, 2200), settings)).toBe(30 * 43 + 2);
  });

  it('bounds the longest side by maxSide', () => {
    expect(preparedSize(page(1500, 2200), { maxSide: 1100 })).toEqual({ width: 750, height: 1100 });
  });

  it('never upscales', () => {
    expect(preparedSize(page(400, 600), { maxPixels: 1_003_520, maxSide: 2000 })).toEqual({ width: 400, height: 600 });
  });

  it('refuses a page smaller than minPixels, naming document and page', () => {
    expect(() => preparedSize(page(40, 60), { minPixels: 3136 })).toThrow(/document 90001 page 1 .*fewer than images.minPixels 3136/);
  });

  it('refuses minPixels above maxPixels in the settings', () => {
    expect(ImageSettingsSchema.safeParse({ minPixels: 10, maxPixels: 5, tokens: { formula: 'fixed', tokens: 1 } }).success).toBe(false);
  });
});
