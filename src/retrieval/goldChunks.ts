import { InputError } from '../errors.js';
import type { ChunkStore, LabelledChunk } from '../index/chunkStore.js';
import type { RetrievalQuery } from './types.js';

/**
 * The gold evidence of a query as stored chunks: `gold.chunkIds` in their given order, or — for page
 * evidence — the chunks of `gold.docId` (else `query.docId`; a document's chunks include those whose
 * `meta.doc_id` names it) whose `meta.page` (one-based; or every page of `meta.pages`) is in `gold.pages`,
 * in corpus order.
 * No gold (e.g. unanswerable items) gives an empty list.
 */
export function goldChunks(store: ChunkStore, query: RetrievalQuery, indexDir: string): LabelledChunk[] {
  const gold = query.gold;
  if (gold?.chunkIds?.length) {
    return gold.chunkIds.map((id) => {
      const chunk = store.byId(id);
      if (!chunk) throw new InputError(`${indexDir}: gold chunk "${id}" of item ${query.itemId ?? '?'} is not in this index`);
      return chunk;
    });
  }
  if (gold?.pages?.length) {
    const docId = gold.docId ?? query.docId;
    if (!docId) throw new InputError(`item ${query.itemId ?? '?'}: gold pages need gold.docId or the query's docId`);
    const pages = new Set(gold.pages);
    return store.byLabels(store.labelsOfDoc(docId)).filter((chunk) => {
      // A page-window chunk (meta.pages) is gold only when every page it covers is.
      const covered = Array.isArray(chunk.meta.pages) ? chunk.meta.pages.map(Number) : [Number(chunk.meta.page)];
      return covered.length > 0 && covered.every((page) => pages.has(page));
    });
  }
  return [];
}
