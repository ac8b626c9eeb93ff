import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { DataFileError } from '../errors.js';
import { describePageImage, pageImageFile as pageImagePath } from '../corpus/pageImageFile.js';
import type { PageImageRef } from '../runFiles/pageImage.js';
import { preparedSize } from '../corpus/pageImageSize.js';

/** The file of a page image as it lies; a missing or unreadable one is a DataFileError naming document and page. */
export async function readPageImage(image: PageImageRef): Promise<Buffer> {
  try {
    return await readFile(pageImagePath(image));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'the file is missing' : (error as Error).message;
    throw new DataFileError(`page image of ${describePageImage(image)}: ${reason}`);
  }
}

/** sha256 of the image's bytes: what caches key an image by (its content, never its path). */
export function imageContentHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const MIME_BY_EXTENSION: Record<string, string> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif' };

/**
 * A page image as a `data:` URL, its bytes as they lie; with `maxPixels`, a larger scan is first
 * scaled down (aspect kept) to at most that many pixels and re-encoded as JPEG with sharp.
 */
export async function pageImageDataUrl(image: PageImageRef, maxPixels?: number): Promise<{ url: string; pixels: number }> {
  const bytes = await readPageImage(image);
  if (maxPixels !== undefined) {
    const { default: sharp } = await import('sharp');
    try {
      const { width = 0, height = 0 } = await sharp(bytes).metadata();
      if (width * height > maxPixels) {
        // The size a generator would send the page at (the same rule: scaled down, never up, each side floored).
        const { width: w, height: h } = preparedSize({ ...image, width, height }, { maxPixels });
        const scaled = await sharp(bytes).resize(w, h, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();
        return { url: `data:image/jpeg;base64,${scaled.toString('base64')}`, pixels: w * h };
      }
      return { url: `data:${MIME_BY_EXTENSION[image.path.split('.').pop()!.toLowerCase()] ?? 'image/jpeg'};base64,${bytes.toString('base64')}`, pixels: width * height };
    } catch (error) {
      throw new DataFileError(`page image of ${describePageImage(image)}: not a readable image (${(error as Error).message})`);
    }
  }
  const mime = MIME_BY_EXTENSION[image.path.split('.').pop()!.toLowerCase()] ?? 'application/octet-stream';
  return { url: `data:${mime};base64,${bytes.toString('base64')}`, pixels: image.width * image.height };
}
