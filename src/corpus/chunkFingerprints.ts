import { createHash } from 'node:crypto';

/** A chunk text's 64-bit fingerprint as two words: the first 8 bytes of its SHA-1, never (0, 0). */
export function fingerprintChunkText(text: string): [number, number] {
  const digest = createHash('sha1').update(text).digest();
  const hi = digest.readUInt32LE(0);
  const lo = digest.readUInt32LE(4);
  return [hi === 0 && lo === 0 ? 1 : hi, lo]; // (0, 0) marks an empty slot
}

/**
 * The chunk texts already written, to drop exact duplicates: an open-addressing table of 64-bit
 * fingerprints, each with the ordinal (line number in chunks.jsonl) of the chunk kept for it, so that a
 * dropped duplicate can name its kept twin (~24 bytes a chunk, not ~100 for a Set of strings, at zhwiki
 * scale); a collision (≈ n²/2⁶⁵) would drop one unique chunk.
 */
export class ChunkFingerprints {
  /** Three words a slot: hi, lo, ordinal of the kept chunk. */
  private table = new Uint32Array(3 * 1024);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds the text's fingerprint for the chunk at `ordinal`; false when it was already there (a duplicate). */
  add(text: string, ordinal = 0): boolean {
    const [hi, lo] = fingerprintChunkText(text);
    return this.keptOrdinal(hi, lo, ordinal) === undefined;
  }

  /** Adds a fingerprint from fingerprintChunkText (computed in another thread, say); false for a duplicate. */
  addFingerprint(hi: number, lo: number, ordinal = 0): boolean {
    return this.keptOrdinal(hi, lo, ordinal) === undefined;
  }

  /** Adds the fingerprint for the chunk at `ordinal`: undefined when new, else the ordinal of the chunk kept for it before. */
  keptOrdinal(hi: number, lo: number, ordinal: number): number | undefined {
    if ((this.count + 1) * 2 > this.table.length / 3) this.grow();
    return this.insert(hi, lo, ordinal);
  }

  private insert(hi: number, lo: number, ordinal: number): number | undefined {
    const slots = this.table.length / 3;
    const slot = (lo ^ Math.imul(hi, 0x9e3779b1)) >>> 0;
    for (let i = 0; ; i++) {
      const at = ((slot + i) % slots) * 3;
      const h = this.table[at]!;
      const l = this.table[at + 1]!;
      if (h === 0 && l === 0) {
        this.table[at] = hi;
        this.table[at + 1] = lo;
        this.table[at + 2] = ordinal;
        this.count++;
        return undefined;
      }
      if (h === hi && l === lo) return this.table[at + 2]!;
    }
  }

  private grow(): void {
    const old = this.table;
    this.table = new Uint32Array(old.length * 2);
    this.count = 0;
    for (let at = 0; at < old.length; at += 3) {
      if (old[at] !== 0 || old[at + 1] !== 0) this.insert(old[at]!, old[at + 1]!, old[at + 2]!);
    }
  }
}
