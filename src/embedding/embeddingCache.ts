import { createHash } from 'node:crypto';
import { FLOAT32_VECTOR, JSON_VALUE, KeyValueStore, type KeyValueTable } from '../io/keyValueStore.js';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Vectors on disk, keyed by (embedder key, sha256 of the text), in a key-value store: several
 * processes may share one file, and an interrupted run keeps every vector stored so far.
 */
export class EmbeddingCache {
  private readonly store: KeyValueStore;
  private readonly vectors: KeyValueTable<number[]>;
  private readonly embedders: KeyValueTable<unknown>;

  constructor(readonly file: string) {
    this.store = new KeyValueStore(file, 'embedding cache');
    this.vectors = this.store.table('embedding_vectors', FLOAT32_VECTOR);
    this.embedders = this.store.table('embedder_identities', JSON_VALUE);
  }

  /** Records what an embedder key stands for (for people inspecting the file). */
  describe(key: string, identity: unknown): void {
    this.embedders.putIfAbsent(key, identity);
  }

  /** Cached vectors by position in `texts`; missing ones are undefined. */
  getMany(key: string, texts: string[]): Array<number[] | undefined> {
    return this.vectors.getMany(texts.map((text) => `${key}:${sha256(text)}`));
  }

  putMany(key: string, entries: Array<{ text: string; vector: number[] }>): void {
    this.vectors.putMany(entries.map(({ text, vector }) => [`${key}:${sha256(text)}`, vector] as const));
  }

  close(): void {
    this.store.close();
  }
}
