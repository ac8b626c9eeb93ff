import { Document } from '@langchain/core/documents';
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';
import type { RetrievalQuery, RetrievedChunk, Retriever } from '../types.js';

/** Metadata of each Document a hisrag retriever returns through LangChain. */
export interface RetrievedChunkMetadata extends Record<string, unknown> {
  id: string;
  docId: string;
  title: string;
  score: number;
  rank: number;
  meta: Record<string, unknown>;
}

export interface LangChainRetrieverInput extends BaseRetrieverInput {
  retriever: Retriever;
  k: number;
  /** Fixed query fields (e.g. `docId` to search one book). */
  query?: Omit<RetrievalQuery, 'text'>;
}

export function chunkToDocument(chunk: RetrievedChunk): Document<RetrievedChunkMetadata> {
  return new Document({
    pageContent: chunk.text,
    id: chunk.id,
    metadata: { id: chunk.id, docId: chunk.docId, title: chunk.title, score: chunk.score, rank: chunk.rank, meta: chunk.meta },
  });
}

/** Any hisrag Retriever as a LangChain `BaseRetriever` (usable in LCEL chains, `.invoke(question)`). */
export class HisragLangChainRetriever extends BaseRetriever<RetrievedChunkMetadata> {
  static override lc_name(): string {
    return 'HisragLangChainRetriever';
  }

  lc_namespace = ['hisrag', 'retrievers'];
  private readonly retriever: Retriever;
  private readonly k: number;
  private readonly query: Omit<RetrievalQuery, 'text'>;

  constructor(fields: LangChainRetrieverInput) {
    super(fields);
    this.retriever = fields.retriever;
    this.k = fields.k;
    this.query = fields.query ?? {};
  }

  override async _getRelevantDocuments(text: string): Promise<Document<RetrievedChunkMetadata>[]> {
    const hits = await this.retriever.retrieve({ ...this.query, text }, this.k);
    return hits.map(chunkToDocument);
  }
}
