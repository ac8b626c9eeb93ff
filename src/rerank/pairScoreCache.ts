import { createHash } from 'node:crypto';

/**
 * (query, passage) → score in memory, least recently used dropped first, so a passage that
 * several questions (or a re-ranked depth study's repeated calls) bring back is scored once.
 * Keys are sha256 of the model fingerprint and both texts: memory stays small whatever the
 * passage length. Map insertion order gives the LRU order.
 */
export class PairScoreCache {
  private readonly entries = new Map<string, number>();
  hits = 0;
  misses = 0;

  constructor(
    private readonly modelKey: string,
    private readonly capacity: number,
  ) {}

  key(query: string, passage: string): string {
    return createHash('sha256').update(this.modelKey).update('\u0000').update(query).update('\u0000').update(passage).digest('base64');
  }

  get(key: string): number | undefined {
    const value = this.entries.get(key);
    if (value === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: number): void {
    if (this.capacity === 0) return;
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}
