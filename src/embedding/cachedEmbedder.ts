import { Embeddings } from '@langchain/core/embeddings';
import { createHash } from 'node:crypto';
import type { EmbedderIdentity, TextEmbedder } from './types.js';
import { EmbeddingCache } from './embeddingCache.js';

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
 * with the same identity are not embedded again. Queries are looked up as queryPrefix + text,
 * which is exactly what the wrapped embedders feed their model.
 */
export class CachedEmbedder extends Embeddings implements TextEmbedder {
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
    const key = await this.embedderKey();
    const found = this.cache.getMany(key, texts);
    const missingIndexes = found.flatMap((vector, i) => (vector ? [] : [i]));
    // A text repeated within one call is embedded once.
    const missingTexts = [...new Set(missingIndexes.map((i) => texts[i]!))];
    this.stats.hits += texts.length - missingIndexes.length;
    this.stats.misses += missingTexts.length;
    // Stored a slice at a time, so that an interrupted run keeps what it has embedded.
    const byText = new Map<string, number[]>();
    for (let start = 0; start < missingTexts.length; start += STORE_EVERY) {
      const slice = missingTexts.slice(start, start + STORE_EVERY);
      const vectors = await embed(slice);
      this.cache.putMany(key, slice.map((text, i) => ({ text, vector: vectors[i]! })));
      slice.forEach((text, i) => byText.set(text, vectors[i]!));
    }
    for (const i of missingIndexes) found[i] = byText.get(texts[i]!);
    return found as number[][];
  }

  embedDocuments(documents: string[]): Promise<number[][]> {
    return this.lookup(documents, (missing) => this.inner.embedDocuments(missing));
  }

  async embedQuery(query: string): Promise<number[]> {
    const { queryPrefix } = await this.inner.identity();
    const [vector] = await this.lookup([queryPrefix + query], async () => [await this.inner.embedQuery(query)]);
    return vector!;
  }

  async dispose(): Promise<void> {
    const { hits, misses } = this.stats;
    if (hits + misses > 0) this.report?.(`embedding cache ${this.cache.file}: ${hits} hits, ${misses} embedded`);
    this.cache.close();
    await this.inner.dispose();
  }
}
