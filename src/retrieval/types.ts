import type { Chunk } from '../runFiles/corpusFiles.js';
import type { EmbedderIdentity } from '../runFiles/indexManifest.js';

/** A question as the retriever sees it. */
export interface RetrievalQuery {
  text: string;
  /** Benchmark item id, for seeded control retrievers and caching. */
  itemId?: string;
  /** Restrict to one document's chunks (LongHisDoc: rank the pages of one book). */
  docId?: string;
  /** Gold evidence when the benchmark has it: chunk ids, or one-based page numbers within docId. */
  gold?: { chunkIds?: string[]; pages?: number[]; /** Document the gold pages belong to (set even for corpus-wide retrieval). */ docId?: string };
}

export interface RetrievedChunk extends Chunk {
  score: number;
  /** One-based rank in the returned list. */
  rank: number;
  /** Set by a reranked retriever: the chunk's rank and score in the first-stage list it was reranked from. */
  firstStage?: { rank: number; score: number };
  /** Set by a reranked retriever whose reranker could not rank this list (the first-stage order was kept): why. */
  rerankFallback?: string;
}

/** Every retriever (hnsw, exact, bm25, hybrid, oracle, random, oracle+noise) behind one interface. */
export interface Retriever {
  readonly name: string;
  /**
   * True when the list at depth k is not the top k of a deeper list (oracle+noise pads to k).
   * Otherwise the runner retrieves once at the deepest k of a run and cuts the list.
   */
  readonly depthDependent?: boolean;
  retrieve(query: RetrievalQuery, k: number): Promise<RetrievedChunk[]>;
  /**
   * Reranked retrievers only: the first-stage list the last `retrieve` of this query reranked
   * (cached, nothing is retrieved again), so recall@k before reranking can be reported.
   */
  firstStage?(query: RetrievalQuery): Promise<RetrievedChunk[]>;
  /** Many queries at once, same result as `retrieve` on each (dense retrievers embed them in one batch). */
  retrieveBatch?(queries: RetrievalQuery[], k: number): Promise<RetrievedChunk[][]>;
  /**
   * Scores texts (sentences of retrieved passages) against a query by this retriever's own measure:
   * dense retrievers by their index's embedder (cosine), BM25 by BM25 with the index's statistics.
   * Methods that refine context (extractive `refine`) need it; control and fused retrievers lack it.
   */
  relevance?(query: string, texts: string[]): Promise<number[]>;
  /** Describes the retriever for run manifests (index manifest hash, parameters). */
  describe(): RetrieverDescription;
  close(): Promise<void>;
}

/** A retriever as run manifests record it: the fields run logs and reports read, typed; anything else as is. */
export type RetrieverDescription = {
  name: string;
  /** The index it reads; oracle+noise's noise kind and where it puts the gold (as its schema, oracleNoiseSchema.ts, reads them: not imported, since that schema reads these types). */
  index?: string;
  noise?: 'random' | 'hard';
  goldPosition?: 'first' | 'last' | 'middle' | 'random';
  /** hnsw: the search breadth, or what decides it; `efSearchRecall`: how the index's default was tuned. */
  efSearch?: number | string;
  // What run logs read of the index's EfTuning (index/manifest.ts), declared here: the viewer's browser client reads these types and cannot import Node modules.
  efSearchRecall?: { efSearch: number; k: number; recall: number; tuned: boolean; reached: boolean } | null;
  embedder?: EmbedderIdentity;
  /** A fused retriever's children; oracle+noise's `base` (its hard negatives). */
  retrievers?: RetrieverDescription[];
  base?: RetrieverDescription;
  /** A reranked retriever's reranker, with the wrapper's settings. */
  rerank?: { name: string; model?: string; endpoint?: string; candidates: number; [key: string]: unknown };
  [key: string]: unknown;
};
