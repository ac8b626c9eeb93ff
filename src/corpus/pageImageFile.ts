import { join } from 'node:path';
import type { PageImageRef } from '../runFiles/pageImage.js';

// Kept apart from pageImage.ts, whose schemas the viewer's browser client imports (no node modules there).
/** Where a referenced page image lies on disk. */
export function pageImageFile(image: Pick<PageImageRef, 'imageDir' | 'path'>): string {
  return join(image.imageDir, ...image.path.split('/'));
}

/** `document 90001 page 12 (/data/img/90001/page_12.jpg)`: how every error names a page image. */
export function describePageImage(image: PageImageRef): string {
  return `document ${image.docId} page ${image.page} (${pageImageFile(image)})`;
}
