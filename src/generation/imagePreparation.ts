import { createHash } from 'node:crypto';
import { readFileSync, statSync, type Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import pLimit from 'p-limit';
import sharp from 'sharp';
import { DataFileError } from '../errors.js';
import { KeyValueStore, type KeyValueTable, type ValueCodec } from '../io/keyValueStore.js';
import { describePageImage, pageImageFile } from '../corpus/pageImageFile.js';
import type { PageImageRef } from '../prompting/types.js';
import { preparedSize } from '../corpus/pageImageSize.js';
import type { ImageSettings } from './imageTokens.js';
import { stableStringify } from './responseCache.js';

/** Where prepared images are kept when a model's `images.cache` names no file (beside the model cache, `.cache/`). */
export const DEFAULT_IMAGE_CACHE = '.cache/page-images.sqlite';

/** A page image as it is sent: encoded bytes at the prepared size, and the hash of the scan it came from. */
export interface PreparedImage {
  /** sha256 of the source file's bytes: what the response cache key holds (never the path). */
  sourceHash: string;
  mime: string;
  bytes: Buffer;
  width: number;
  height: number;
}

const BYTES: ValueCodec<Buffer, Buffer> = { sqlType: 'BLOB', encode: (b) => b, decode: (b) => b };
const MIME = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' } as const;

// Decodes in flight across every preparer of the process: one per core keeps the cores busy while
// 30 pages × an endpoint's concurrency waiting to be sent hold only their small prepared bytes.
const decodeLimit = pLimit(Math.max(1, availableParallelism()));
// libvips' operation cache would keep every decoded page of a long run; each page is decoded once
// here (the prepared bytes are cached by content), so caching operations only costs memory.
sharp.cache(false);

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Where a page lies on disk; its document, page and file named in every error about it. */
function sourceOf(image: PageImageRef): { file: string; what: string } {
  return { file: pageImageFile(image), what: describePageImage(image) };
}

/**
 * Prepares page images for one model's settings (decode, resize within `maxPixels`/`maxSide`,
 * encode as `format` at `quality`), with sharp. Prepared bytes are kept in a key-value store by
 * (sha256 of the source bytes, the preparation settings), so a page is prepared once for every run
 * and every model with the same settings; each source file is read at most once per call, and its
 * hash is remembered by path, size and modification time.
 */
export class ImagePreparer {
  readonly cacheFile: string;
  /** What changes the prepared bytes; part of every prepared image's key and of the response cache key. */
  readonly settingsKey: string;
  readonly stats = { prepared: 0, cacheHits: 0 };
  readonly #settings: ImageSettings;
  readonly #hashes = new Map<string, { size: number; mtimeMs: number; hash: string }>();
  /** Preparations under way by key: a page several requests show at once is prepared once. */
  readonly #inFlight = new Map<string, Promise<Buffer>>();
  #table?: KeyValueTable<Buffer>;

  constructor(settings: ImageSettings) {
    this.#settings = settings;
    this.cacheFile = resolve(settings.cache ?? DEFAULT_IMAGE_CACHE);
    const { maxPixels, maxSide, format, quality } = settings;
    this.settingsKey = createHash('sha256')
      .update(stableStringify({ maxPixels, maxSide, format, quality, sharp: sharp.versions.sharp, vips: sharp.versions.vips }))
      .digest('hex')
      .slice(0, 16);
  }

  // Opened on first use: a text-only run of a model with image settings creates no file.
  get #store(): KeyValueTable<Buffer> {
    this.#table ??= new KeyValueStore(this.cacheFile, 'page-image cache').table('prepared_images', BYTES);
    return this.#table;
  }

  #remembered(file: string, info: Stats): string | undefined {
    const known = this.#hashes.get(file);
    return known && known.size === info.size && known.mtimeMs === info.mtimeMs ? known.hash : undefined;
  }

  #remember(file: string, info: Stats, bytes: Buffer): string {
    const hash = sha256(bytes);
    this.#hashes.set(file, { size: info.size, mtimeMs: info.mtimeMs, hash });
    return hash;
  }

  /** The source file's hash, synchronously (a cache lookup that must not wait: `isCached`). */
  sourceHashSync(image: PageImageRef): string {
    const { file, what } = sourceOf(image);
    try {
      const info = statSync(file);
      return this.#remembered(file, info) ?? this.#remember(file, info, readFileSync(file));
    } catch (error) {
      throw unreadable(what, error);
    }
  }

  /** The source file's hash; the bytes too when they had to be read for it (so preparing does not read them again). */
  async identify(image: PageImageRef): Promise<{ hash: string; source?: Buffer }> {
    const { file, what } = sourceOf(image);
    try {
      const info = await stat(file);
      const known = this.#remembered(file, info);
      if (known) return { hash: known };
      const source = await readFile(file);
      return { hash: this.#remember(file, info, source), source };
    } catch (error) {
      throw unreadable(what, error);
    }
  }

  /** The image as the model is sent it: from the store, or prepared now (and stored). */
  async prepare(image: PageImageRef, identified?: { hash: string; source?: Buffer }): Promise<PreparedImage> {
    const { hash, source } = identified ?? (await this.identify(image));
    const { format } = this.#settings;
    const size = preparedSize(image, this.#settings);
    const key = `${hash}:${this.settingsKey}`;
    const stored = this.#store.get(key);
    if (stored) {
      this.stats.cacheHits++;
      return { sourceHash: hash, mime: MIME[format], bytes: stored, ...size };
    }
    let pending = this.#inFlight.get(key);
    if (!pending) {
      pending = decodeLimit(() => this.#encode(image, source, size)).then((bytes) => {
        this.#store.putMany([[key, bytes]]);
        this.stats.prepared++;
        return bytes;
      });
      this.#inFlight.set(key, pending);
      void pending.catch(() => {}).finally(() => this.#inFlight.delete(key));
    }
    return { sourceHash: hash, mime: MIME[format], bytes: await pending, ...size };
  }

  async #encode(image: PageImageRef, source: Buffer | undefined, size: { width: number; height: number }): Promise<Buffer> {
    const { file, what } = sourceOf(image);
    let input: Buffer;
    try {
      input = source ?? (await readFile(file));
    } catch (error) {
      throw unreadable(what, error);
    }
    const { format, quality } = this.#settings;
    try {
      // The header only (no decode); sharp's default failOn ('warning') makes a cut-off scan an error, not a page with a grey bottom half.
      const { width, height } = await sharp(input).metadata();
      const page = sharp(input);
      if (width !== image.width || height !== image.height) {
        throw new DataFileError(`${what}: the image is ${width}×${height}, the corpus recorded ${image.width}×${image.height}: the file changed since the corpus was built; rebuild it`);
      }
      const resized = size.width === width && size.height === height ? page : page.resize(size.width, size.height, { fit: 'fill' });
      return await (format === 'jpeg' ? resized.jpeg({ quality }) : format === 'webp' ? resized.webp({ quality }) : resized.png()).toBuffer();
    } catch (error) {
      if (error instanceof DataFileError) throw error;
      throw new DataFileError(`${what}: not a readable image (${(error as Error).message})`);
    }
  }

  /** A data URL of the prepared image: `data:image/jpeg;base64,…`, as OpenAI's `image_url` parts take it. */
  static dataUrl(image: PreparedImage): string {
    return `data:${image.mime};base64,${image.bytes.toString('base64')}`;
  }

  describe(): { cache: string } {
    return { cache: this.cacheFile };
  }
}

function unreadable(what: string, error: unknown): DataFileError {
  const code = (error as NodeJS.ErrnoException).code;
  return new DataFileError(`${what}: ${code === 'ENOENT' ? 'the page image is missing' : `cannot read the page image (${(error as Error).message})`}`);
}

// One preparer per settings and cache file: generators of one model share their hash memo and store.
const preparers = new Map<string, ImagePreparer>();

export function imagePreparer(settings: ImageSettings): ImagePreparer {
  const key = stableStringify({ ...settings, cache: resolve(settings.cache ?? DEFAULT_IMAGE_CACHE), tokens: undefined });
  let preparer = preparers.get(key);
  if (!preparer) preparers.set(key, (preparer = new ImagePreparer(settings)));
  return preparer;
}
