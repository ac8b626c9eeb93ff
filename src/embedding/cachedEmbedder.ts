import { BatchEmbeddings } from './batchEmbeddings.js';
import { createHash } from 'node:crypto';
import type { PageImageRef } from '../runFiles/pageImage.js';
import { isImageEmbedder, type TextEmbedder } from './types.js';
import { type EmbedderIdentity } from '../runFiles/indexManifest.js';
import { EmbeddingCache } from './embeddingCache.js';
import { imageContentHash, readPageImage } from './pageImageBytes.js';

/** An embedder that can say what, beyond its identity, changes its vectors (dtype, truncation…). */
export interface VariantKeyed {
  variantKey?(): Promise<string>;
}

/** Texts embedded between two writes to the cache file. */
const STORE_EVERY = 256;

export interface CacheStats {
  /** Texts whose vectors came from the cache. */
  hits: number;
  /** Texts that had to be embedded (and were then stored). */
  misses: number;
}

/**
 * Wraps an embedder with an on-disk cache (`cacheFile`): texts already embedded by an embedder
 * with the same identity are not embedded again. Documents are looked up as documentPrefix + text
 * and queries as queryPrefix + text, which is exactly what the wrapped embedders feed their model.
 */
export class CachedEmbedder extends BatchEmbeddings implements TextEmbedder {
  private readonly cache: EmbeddingCache;
  private key?: Promise<string>;
  readonly stats: CacheStats = { hits: 0, misses: 0 };

  constructor(
    readonly inner: TextEmbedder & VariantKeyed,
    cacheFile: string,
    /** Where the hit count is reported when the embedder is disposed; null keeps quiet. */
    private readonly report: ((line: string) => void) | null = (line) => process.stderr.write(`${line}\n`),
  ) {
    super({});
    this.cache = new EmbeddingCache(cacheFile);
  }

  identity(): Promise<EmbedderIdentity> {
    return this.inner.identity();
  }

  /** The wrapped embedder's: this cache returns the vectors it would. */
  get vectorKey(): (() => Promise<string | undefined>) | undefined {
    const inner = this.inner;
    return inner.vectorKey && (() => inner.vectorKey!());
  }

  /** A cache in front of a remote embedder is remote too (it holds no model). */
  get remote(): { concurrency: number } | undefined {
    return this.inner.remote;
  }

  /** The wrapped embedder's fingerprint, when it has one. */
  get fingerprint(): (() => Promise<string>) | undefined {
    const inner = this.inner;
    return inner.fingerprint && (() => inner.fingerprint!());
  }

  private embedderKey(): Promise<string> {
    this.key ??= (async () => {
      const identity = await this.inner.identity();
      const variant = (await this.inner.variantKey?.()) ?? '';
      const key = createHash('sha256').update(JSON.stringify({ identity, variant })).digest('hex');
      this.cache.describe(key, { identity, variant });
      return key;
    })();
    return this.key;
  }

  private async lookup(texts: string[], embed: (missing: string[]) => Promise<number[][]>): Promise<number[][]> {
    const hashes = texts.map((text) => createHash('sha256').update(text, 'utf8').digest('hex'));
    return this.lookupByContent(texts, hashes, embed);
  }

  /**
   * Looks `items` up by their content keys; the missing ones (each distinct content once) are embedded
   * and stored a slice at a time, so that an interrupted run keeps what it has embedded.
   */
  private async lookupByContent<T>(items: T[], contents: string[], embed: (missing: T[]) => Promise<number[][]>): Promise<number[][]> {
    const key = await this.embedderKey();
    const found = this.cache.getManyByContent(key, contents);
    const missingIndexes = found.flatMap((vector, i) => (vector ? [] : [i]));
    const firstOf = new Map<string, number>();
    for (const i of missingIndexes) if (!firstOf.has(contents[i]!)) firstOf.set(contents[i]!, i);
    const missing = [...firstOf.entries()];
    this.stats.hits += items.length - missingIndexes.length;
    this.stats.misses += missing.length;
    const byContent = new Map<string, number[]>();
    for (let start = 0; start < missing.length; start += STORE_EVERY) {
      const slice = missing.slice(start, start + STORE_EVERY);
      const vectors = await embed(slice.map(([, i]) => items[i]!));
      this.cache.putManyByContent(key, slice.map(([content], i) => ({ content, vector: vectors[i]! })));
      slice.forEach(([content], i) => byContent.set(content, vectors[i]!));
    }
    for (const i of missingIndexes) found[i] = byContent.get(contents[i]!);
    return found as number[][];
  }

  /**
   * Present when the wrapped embedder embeds images: page images keyed by the sha256 of their bytes (and
   * the embedder's image variant), never their path — a page scanned again is embedded again, a folder
   * moved is not.
   */
  get embedImages(): ((images: PageImageRef[]) => Promise<number[][]>) | undefined {
    const inner = this.inner;
    if (!isImageEmbedder(inner)) return undefined;
    return async (images) => {
      const variant = inner.imageVariant?.() ?? '';
      const contents = await Promise.all(
        images.map(async (image) => `image:${imageContentHash(await readPageImage(image))}${variant ? `:${createHash('sha256').update(variant).digest('hex').slice(0, 16)}` : ''}`),
      );
      return this.lookupByContent(images, contents, (missing) => inner.embedImages(missing));
    };
  }

  /** Texts keyed as the model sees them (prefix included), each missing one with its unprefixed original. */
  private async lookupPrefixed(texts: string[], prefix: string, embed: (missing: string[]) => Promise<number[][]>): Promise<number[][]> {
    const originals = new Map(texts.map((text) => [prefix + text, text]));
    return this.lookup([...texts.map((text) => prefix + text)], (missing) => embed(missing.map((key) => originals.get(key)!)));
  }

  async embedDocuments(documents: string[]): Promise<number[][]> {
    const { documentPrefix } = await this.inner.identity();
    return this.lookupPrefixed(documents, documentPrefix, (missing) => this.inner.embedDocuments(missing));
  }

  async embedQueries(queries: string[]): Promise<number[][]> {
    const { queryPrefix } = await this.inner.identity();
    const inner = this.inner;
    return this.lookupPrefixed(queries, queryPrefix, (missing) =>
      inner.embedQueries ? inner.embedQueries(missing) : Promise.all(missing.map((query) => inner.embedQuery(query))),
    );
  }

  /** Forwarded: the wrapped embedder need not ask its server for the width an index recorded. */
  adoptDimension(dimension: number): void {
    this.inner.adoptDimension?.(dimension);
  }

  get conventionSources(): (() => Promise<Record<string, string>>) | undefined {
    const inner = this.inner;
    return inner.conventionSources && (() => inner.conventionSources!());
  }

  async dispose(): Promise<void> {
    const { hits, misses } = this.stats;
    if (hits + misses > 0) this.report?.(`embedding cache ${this.cache.file}: ${hits} hits, ${misses} embedded`);
    this.cache.close();
    await this.inner.dispose();
  }
}
