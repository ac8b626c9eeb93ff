import { KeyValueStore, REAL_NUMBER, type KeyValueTable } from '../io/keyValueStore.js';

/**
 * Cross-encoder logits on disk, keyed by the pair key of `PairScoreCache` (model fingerprint,
 * query and passage hashed together), in a key-value store like the embedding cache's: a resumed
 * or repeated run rescores no pair, and several processes may share the file.
 */
export class PairScoreStore {
  private readonly store: KeyValueStore;
  private readonly logits: KeyValueTable<number>;

  constructor(readonly file: string) {
    this.store = new KeyValueStore(file, 'rerank cache');
    this.logits = this.store.table('pair_scores', REAL_NUMBER);
  }

  get(key: string): number | undefined {
    return this.logits.get(key);
  }

  putMany(entries: Array<[key: string, logit: number]>): void {
    this.logits.putMany(entries);
  }

  close(): void {
    this.store.close();
  }
}
