import type { ChunkStore } from '../index/chunkStore.js';
import type { Scored } from '../index/topK.js';
import type { RetrievedChunk } from './types.js';

/** Reads ranked labels' chunks from the store and numbers them 1..n. */
export function toRetrievedChunks(store: ChunkStore, ranked: Scored[]): RetrievedChunk[] {
  const chunks = store.byLabels(ranked.map((hit) => hit.label));
  return chunks.map(({ label: _label, ...chunk }, i) => ({ ...chunk, score: ranked[i]!.score, rank: i + 1 }));
}

/** Renumbers a list 1..n (after fusion or placement). */
export function reRank(chunks: Omit<RetrievedChunk, 'rank'>[]): RetrievedChunk[] {
  return chunks.map((chunk, i) => ({ ...chunk, rank: i + 1 }));
}
