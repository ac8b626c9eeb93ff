import { FLOAT32_VECTOR, JSON_VALUE, KeyValueStore, type KeyValueTable } from '../io/keyValueStore.js';

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

  /** Cached vectors by content key (a text's sha256, an image's `image:<sha256 of its bytes>`); missing: undefined. */
  getManyByContent(key: string, contents: string[]): Array<number[] | undefined> {
    return this.vectors.getMany(contents.map((content) => `${key}:${content}`));
  }

  putManyByContent(key: string, entries: Array<{ content: string; vector: number[] }>): void {
    this.vectors.putMany(entries.map(({ content, vector }) => [`${key}:${content}`, vector] as const));
  }

  close(): void {
    this.store.close();
  }
}
