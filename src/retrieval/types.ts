import type { Chunk } from '../chunking/types.js';

/** A question as the retriever sees it. */
export interface RetrievalQuery {
  text: string;
  /** Benchmark item id, for seeded control retrievers and caching. */
  itemId?: string;
  /** Restrict to one document's chunks (LongHisDoc: rank the pages of one book). */
  docId?: string;
  /** Gold evidence when the benchmark has it: chunk ids, or one-based page numbers within docId. */
  gold?: { chunkIds?: string[]; pages?: number[] };
}

export interface RetrievedChunk extends Chunk {
  score: number;
  /** One-based rank in the returned list. */
  rank: number;
}

/** Every retriever (hnsw, exact, bm25, hybrid, oracle, random, oracle+noise) behind one interface. */
export interface Retriever {
  readonly name: string;
  retrieve(query: RetrievalQuery, k: number): Promise<RetrievedChunk[]>;
  /** Describes the retriever for run manifests (index manifest hash, parameters). */
  describe(): Record<string, unknown>;
  close(): Promise<void>;
}
