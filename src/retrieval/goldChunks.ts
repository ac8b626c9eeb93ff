import { InputError } from '../errors.js';
import type { ChunkStore, LabelledChunk } from '../index/chunkStore.js';
import type { RetrievalQuery } from './types.js';

/**
 * The gold evidence of a query as stored chunks: `gold.chunkIds` in their given order, or — for page
 * evidence — the chunks of `gold.docId` (else `query.docId`) whose `meta.page` (one-based) is in `gold.pages`, in corpus order.
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
    return store
      .byLabels(store.labelsOfDoc(docId))
      .filter((chunk) => pages.has(Number(chunk.meta.page)));
  }
  return [];
}
