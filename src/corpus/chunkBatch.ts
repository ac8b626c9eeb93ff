import { z } from 'zod';
import type { Chunk } from '../chunking/types.js';
import { fingerprintChunkText } from './chunkFingerprints.js';
import type { BuilderItem, ChunkBatch } from './types.js';

// What arrives from a worker thread: checked once per batch, not per chunk.
export const ChunkBatchSchema = z
  .object({
    items: z.number().int().nonnegative(),
    skipped: z.record(z.string(), z.number().int().nonnegative()),
    lines: z.instanceof(Uint8Array),
    lineEnds: z.instanceof(Uint32Array),
    fingerprints: z.instanceof(Uint32Array),
  })
  .refine((b) => b.fingerprints.length === 2 * b.lineEnds.length, 'one fingerprint per line')
  .refine((b) => b.lineEnds.length === 0 || b.lineEnds[b.lineEnds.length - 1] === b.lines.length, 'line ends cover the lines');

/** Collects items and their chunks into a ChunkBatch. */
export class ChunkBatchWriter {
  private items = 0;
  private readonly skipped: Record<string, number> = {};
  private readonly lines: string[] = [];
  private readonly fingerprints: number[] = [];

  add(item: BuilderItem, chunks: () => Chunk[]): void {
    this.items++;
    if (item.kind === 'skipped') {
      this.skipped[item.reason] = (this.skipped[item.reason] ?? 0) + 1;
      return;
    }
    for (const chunk of chunks()) {
      this.lines.push(JSON.stringify(chunk));
      const [hi, lo] = fingerprintChunkText(chunk.text);
      this.fingerprints.push(hi, lo);
    }
  }

  finish(): ChunkBatch {
    const lines = new TextEncoder().encode(this.lines.length > 0 ? this.lines.join('\n') + '\n' : '');
    // JSON escapes newlines inside strings and UTF-8 never has 0x0A inside a character: every 0x0A ends a line.
    const lineEnds = new Uint32Array(this.lines.length);
    for (let i = 0, at = lines.indexOf(10); at >= 0; at = lines.indexOf(10, at + 1)) lineEnds[i++] = at + 1;
    return { items: this.items, skipped: this.skipped, lines, lineEnds, fingerprints: Uint32Array.from(this.fingerprints) };
  }
}
