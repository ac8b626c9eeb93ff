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

function pagesOf(chunk: RetrievedChunk): number[] {
  const pages = chunk.meta.pages;
  if (Array.isArray(pages)) return pages.filter((p): p is number => typeof p === 'number');
  return typeof chunk.meta.page === 'number' ? [chunk.meta.page] : [];
}

/** Gold when the item names the chunk id, or (LongHisDoc) the chunk covers an evidence page of the item's document. */
export function isGoldChunk(item: BenchmarkItem, chunk: RetrievedChunk): boolean {
  if (item.goldChunkIds?.includes(chunk.id)) return true;
  if (!item.docId || !item.evidencePages?.length || chunk.meta.doc_id !== item.docId) return false;
  return pagesOf(chunk).some((page) => item.evidencePages!.includes(page));
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
