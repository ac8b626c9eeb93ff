import { z } from 'zod';
import type { BenchmarkItem } from '../benchmarks/types.js';
import type { RetrievedChunk } from '../retrieval/types.js';

/**
 * Where chunks go in the prompt once the budget has chosen them: `rank` (best first),
 * `reversed` (best last, next to the question), `gold-middle` (gold evidence placed in the
 * middle of the others: the "lost in the middle" condition of noise studies).
 */
export const ContextOrderingSchema = z.enum(['rank', 'reversed', 'gold-middle']);
export type ContextOrdering = z.infer<typeof ContextOrderingSchema>;

/** A chunk's one-based pages (`meta.pages` of a page window, else `meta.page`), if it has any. */
export function chunkPages(chunk: RetrievedChunk): number[] | undefined {
  const pages = chunk.meta.pages;
  if (Array.isArray(pages) && pages.every((p) => typeof p === 'number')) return pages as number[];
  return typeof chunk.meta.page === 'number' ? [chunk.meta.page] : undefined;
}

/** Gold when the item names the chunk id, or (LongHisDoc) the chunk covers an evidence page of the item's document. */
export function isGoldChunk(item: BenchmarkItem, chunk: RetrievedChunk): boolean {
  if (item.goldChunkIds?.includes(chunk.id)) return true;
  if (!item.docId || !item.evidencePages?.length || chunk.meta.doc_id !== item.docId) return false;
  return (chunkPages(chunk) ?? []).some((page) => item.evidencePages!.includes(page));
}

export function orderContext<T>(list: T[], ordering: ContextOrdering, isGold: (entry: T) => boolean): T[] {
  if (ordering === 'reversed') return [...list].reverse();
  if (ordering === 'gold-middle') {
    const gold = list.filter(isGold);
    const others = list.filter((entry) => !isGold(entry));
    const middle = Math.floor(others.length / 2);
    return [...others.slice(0, middle), ...gold, ...others.slice(middle)];
  }
  return [...list];
}
