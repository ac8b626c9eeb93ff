import { statSync } from 'node:fs';
import { extname } from 'node:path';
import { insideFile } from './runFileReads.js';

/** Longest side of a thumbnail, in pixels. */
export const THUMBNAIL_SIDE = 240;
/** Thumbnails kept in memory (a few KB each); the oldest go first. */
const THUMBNAIL_CACHE_ENTRIES = 2000;

const IMAGE_TYPES: Record<string, string> = { '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.png': 'image/png', '.webp': 'image/webp' };

/**
 * A page image inside one of a run's image folders, or null: the path must be relative, made of
 * plain names (no empty, `.` or `..` segment, no backslash), name an image file, and resolve —
 * links followed — inside the folder (`insideFile`, the rule the viewer applies to run files).
 */
export function pageImageFile(imageDir: string, path: string): { file: string; type: string } | null {
  const segments = path.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\') || s.includes('\0'))) return null;
  const type = IMAGE_TYPES[extname(path).toLowerCase()];
  if (!type) return null;
  const file = insideFile(imageDir, segments.join('/'));
  return file ? { file, type } : null;
}

const thumbnails = new Map<string, Promise<Buffer>>();

/** An image file's JPEG thumbnail, kept in memory (never written) by the file's identity: a replaced file gets a new one. */
export function thumbnailOf(file: string): Promise<Buffer> {
  const st = statSync(file);
  const key = `${file}\u0000${st.ino}\u0000${st.size}\u0000${st.mtimeMs}`;
  let thumb = thumbnails.get(key);
  if (thumb) {
    // Most recently used last: the cache drops from the front.
    thumbnails.delete(key);
    thumbnails.set(key, thumb);
    return thumb;
  }
  // sharp (a native image library) is imported with the first thumbnail, not when the viewer starts.
  thumb = import('sharp').then(({ default: sharp }) => sharp(file).rotate().resize(THUMBNAIL_SIDE, THUMBNAIL_SIDE, { fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 75 }).toBuffer());
  thumbnails.set(key, thumb);
  thumb.catch(() => thumbnails.delete(key));
  while (thumbnails.size > THUMBNAIL_CACHE_ENTRIES) thumbnails.delete(thumbnails.keys().next().value!);
  return thumb;
}
