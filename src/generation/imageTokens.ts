import { z } from 'zod';
import { ConfigError } from '../errors.js';
import type { ChatMessage, PageImageRef } from '../prompting/types.js';
import { promptImages } from '../prompting/messageContent.js';
import type { Generator } from './types.js';
import { ImageSizeFields, preparedSize, type ImageSize } from '../corpus/pageImageSize.js';

/**
 * How a model counts the tokens of one image, from the size it is sent at:
 * - `qwen-vl`: Qwen2-VL / Qwen2.5-VL's `smart_resize` (each side to a multiple of `patch`, the
 *   area brought within [minPixels, maxPixels]), one token per patch × patch cell, plus the two
 *   vision start/end tokens;
 * - `openai-tiles`: OpenAI's 512-pixel tiles (`high`), or a flat 85 (`low`);
 * - `fixed`: the same number for every image (a model card that says so).
 */
export const ImageTokensSchema = z.discriminatedUnion('formula', [
  z.strictObject({
    formula: z.literal('qwen-vl'),
    patch: z.number().int().positive().default(28).describe('Pixels per token side: 28 for Qwen2-VL and Qwen2.5-VL (14-pixel patches merged 2 × 2); 32 for Qwen3-VL'),
    minPixels: z.number().int().positive().default(3136),
    maxPixels: z.number().int().positive().default(12_845_056),
  }),
  z.strictObject({ formula: z.literal('openai-tiles'), detail: z.enum(['high', 'low']).default('high') }),
  z.strictObject({ formula: z.literal('fixed'), tokens: z.number().int().nonnegative() }),
]);
export type ImageTokens = z.output<typeof ImageTokensSchema>;

/** Per-model image settings (`images:` on a generator): how pages are prepared and how they are counted. */
export const ImageSettingsSchema = z
  .strictObject({
    ...ImageSizeFields,
    format: z.enum(['jpeg', 'png', 'webp']).default('jpeg'),
    quality: z.number().int().min(1).max(100).default(85).describe('Encoder quality (jpeg, webp), 1–100'),
    tokens: ImageTokensSchema,
    cache: z.string().min(1).optional().describe('SQLite file of prepared images (by content and settings); default `.cache/page-images.sqlite`'),
  })
  .superRefine((settings, ctx) => {
    if (settings.minPixels !== undefined && settings.maxPixels !== undefined && settings.minPixels > settings.maxPixels) {
      ctx.addIssue({ code: 'custom', path: ['minPixels'], message: `minPixels (${settings.minPixels}) is larger than maxPixels (${settings.maxPixels})` });
    }
  });
export type ImageSettings = z.output<typeof ImageSettingsSchema>;

/** Python's round(): halves to even, as smart_resize computes it. */
function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/**
 * Qwen2-VL's `smart_resize` (transformers, `models/qwen2_vl/image_processing_qwen2_vl.py`; the
 * same in `qwen_vl_utils.smart_resize` used by Qwen2.5-VL): both sides rounded to multiples of
 * `factor`, then scaled down (floor) to at most `maxPixels`, or up (ceil) to at least `minPixels`.
 */
export function smartResize(height: number, width: number, factor: number, minPixels: number, maxPixels: number): { height: number; width: number } {
  let h = Math.max(factor, roundHalfEven(height / factor) * factor);
  let w = Math.max(factor, roundHalfEven(width / factor) * factor);
  if (h * w > maxPixels) {
    const beta = Math.sqrt((height * width) / maxPixels);
    h = Math.max(factor, Math.floor(height / beta / factor) * factor);
    w = Math.max(factor, Math.floor(width / beta / factor) * factor);
  } else if (h * w < minPixels) {
    const beta = Math.sqrt(minPixels / (height * width));
    h = Math.ceil((height * beta) / factor) * factor;
    w = Math.ceil((width * beta) / factor) * factor;
  }
  return { height: h, width: w };
}

/** OpenAI's vision cost (platform.openai.com/docs/guides/images-vision, "Calculating costs", GPT-4o family): 85 base + 170 per 512-pixel tile. */
function openaiTiles(width: number, height: number, detail: 'high' | 'low'): number {
  if (detail === 'low') return 85;
  // Fit within 2048 × 2048, then the shortest side down to 768 (images are not scaled up).
  const fit = Math.min(1, 2048 / Math.max(width, height));
  let w = width * fit;
  let h = height * fit;
  const shortest = Math.min(w, h);
  if (shortest > 768) {
    w = (w * 768) / shortest;
    h = (h * 768) / shortest;
  }
  return 85 + 170 * Math.ceil(Math.floor(w) / 512) * Math.ceil(Math.floor(h) / 512);
}

/** Tokens the model counts for an image sent at this size. */
export function tokensForSize(size: { width: number; height: number }, tokens: ImageTokens): number {
  switch (tokens.formula) {
    case 'qwen-vl': {
      const { height, width } = smartResize(size.height, size.width, tokens.patch, tokens.minPixels, tokens.maxPixels);
      return (height / tokens.patch) * (width / tokens.patch) + 2;
    }
    case 'openai-tiles':
      return openaiTiles(size.width, size.height, tokens.detail);
    case 'fixed':
      return tokens.tokens;
  }
}

/** Tokens of one page image as a model with these settings is sent it (from the prepared size). */
export function imageTokensOf(image: PageImageRef, settings: ImageSize & { tokens: ImageTokens }): number {
  return tokensForSize(preparedSize(image, settings), settings.tokens);
}

/**
 * The generator's image-token count, or a ConfigError naming the model when it cannot be shown
 * images — raised before any call, so that no prompt's images are silently dropped.
 */
export function imageCounterOf(generator: Generator, messages: ChatMessage[]): (image: PageImageRef) => number {
  const count = generator.imageTokens?.bind(generator);
  if (count) return count;
  return () => {
    throw imagesRefused(generator, promptImages(messages).length);
  };
}

/** The refusal of a generator that reads text only, given a prompt with page images. */
export function imagesRefused(generator: Pick<Generator, 'name' | 'model'>, images: number): ConfigError {
  const what = `generator "${generator.model}" (${generator.name}) was given a prompt with ${images} page image${images === 1 ? '' : 's'}, but it reads text only`;
  const fix =
    generator.name === 'openai'
      ? 'add `images:` to its params (e.g. `images: { maxPixels: 1003520, tokens: { formula: qwen-vl } }` for a vLLM-served Qwen2.5-VL), or give it a text strategy'
      : 'use a model that sees images (an `openai` generator with `images:` settings, or the offline stand-in `page-reader`), or a text strategy';
  return new ConfigError(`${what}: ${fix}`);
}
