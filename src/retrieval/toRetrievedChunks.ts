import type { ChunkStore } from '../index/chunkStore.js';
import type { Scored } from '../index/topK.js';
import type { RetrievedChunk } from './types.js';

/** Reads ranked labels' chunks from the store and numbers them 1..n. */
export function toRetrievedChunks(store: ChunkStore, ranked: Scored[]): RetrievedChunk[] {
  return toRetrievedChunkLists(store, [ranked])[0]!;
}

/** Several ranked lists' chunks with one read of the store (labels shared between lists are read once). */
export function toRetrievedChunkLists(store: ChunkStore, lists: Scored[][]): RetrievedChunk[][] {
  const labels = [...new Set(lists.flatMap((ranked) => ranked.map((hit) => hit.label)))];
  const chunks = new Map(store.byLabels(labels).map((chunk) => [chunk.label, chunk]));
  return lists.map((ranked) =>
    ranked.map((hit, i) => {
      const { id, docId, title, text, meta } = chunks.get(hit.label)!;
      return { id, docId, title, text, meta, score: hit.score, rank: i + 1 };
    }),
  );
}

/** Renumbers a list 1..n (after fusion or placement). */
export function reRank(chunks: Omit<RetrievedChunk, 'rank'>[]): RetrievedChunk[] {
  return chunks.map((chunk, i) => ({ ...chunk, rank: i + 1 }));
}
