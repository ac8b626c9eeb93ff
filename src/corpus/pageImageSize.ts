import { z } from 'zod';
import { DataFileError } from '../errors.js';
import type { PageImageRef } from '../runFiles/pageImage.js';

/** The part of a model's image settings that decides the size an image is sent at. */
export const ImageSizeFields = {
  maxPixels: z.number().int().positive().optional().describe('Largest area sent (width × height); larger pages are scaled down, keeping their aspect ratio'),
  minPixels: z.number().int().positive().optional().describe('Smallest area this model is shown: preparation never upscales, so a page whose prepared size falls below it (a thumbnail-sized scan, or `maxSide` on a very long strip) is refused, naming it'),
  maxSide: z.number().int().positive().optional().describe('Longest side sent, in pixels'),
};

/** The bounds of the size a page is sent at (`images:` of a generator or embedder). */
export type ImageSize = { [K in keyof typeof ImageSizeFields]?: number };

/**
 * The size an image is sent at: scaled down (never up) to fit `maxPixels` and `maxSide`, each side
 * floored so that both bounds hold. A pure function of the original size and the settings, so that
 * a dry run counts tokens without decoding a page.
 */
export function preparedSize(image: Pick<PageImageRef, 'width' | 'height' | 'docId' | 'page' | 'path'>, size: ImageSize): { width: number; height: number } {
  const { width, height } = image;
  const scale = Math.min(
    1,
    size.maxPixels !== undefined ? Math.sqrt(size.maxPixels / (width * height)) : 1,
    size.maxSide !== undefined ? size.maxSide / Math.max(width, height) : 1,
  );
  const prepared = scale === 1 ? { width, height } : { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
  if (size.minPixels !== undefined && prepared.width * prepared.height < size.minPixels) {
    throw new DataFileError(
      `document ${image.docId} page ${image.page} (${image.path}): prepared at ${prepared.width}×${prepared.height} = ${prepared.width * prepared.height} pixels, fewer than images.minPixels ${size.minPixels} (images are never upscaled); lower minPixels to accept it`,
    );
  }
  return prepared;
}
