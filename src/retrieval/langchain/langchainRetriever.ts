import { Document } from '@langchain/core/documents';
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';
import type { RetrievalQuery, RetrievedChunk, Retriever, RetrieverDescription } from '../types.js';

/** Metadata of each Document a hisrag retriever returns through LangChain. */
export interface RetrievedChunkMetadata extends Record<string, unknown> {
  id: string;
  docId: string;
  title: string;
  score: number;
  rank: number;
  meta: Record<string, unknown>;
}

/** Depth of a hisrag retriever invoked through LangChain (`.invoke(question)`) unless `withSearch({ k })` says otherwise. */
export const DEFAULT_LANGCHAIN_K = 10;

/** What a LangChain invocation of a hisrag retriever asks for: depth and fixed query fields (e.g. `docId`). */
export interface LangChainSearch {
  k?: number;
  /** Fixed query fields added to every `.invoke(text)` (e.g. `docId` to search one book). */
  query?: Omit<RetrievalQuery, 'text'>;
}

export interface LangChainRetrieverInput extends BaseRetrieverInput, LangChainSearch {
  retriever: Retriever;
}

export function chunkToDocument(chunk: RetrievedChunk): Document<RetrievedChunkMetadata> {
  return new Document({
    pageContent: chunk.text,
    id: chunk.id,
    metadata: { id: chunk.id, docId: chunk.docId, title: chunk.title, score: chunk.score, rank: chunk.rank, meta: chunk.meta },
  });
}

/**
 * A hisrag retriever that is also a LangChain `BaseRetriever`, as every retriever the registry hands
 * out is: it goes straight into LCEL (`.pipe()`, `.invoke(question)`), and keeps hisrag's own interface.
 */
export class HisragLangChainRetriever extends BaseRetriever<RetrievedChunkMetadata> implements Retriever {
  static override lc_name(): string {
    return 'HisragLangChainRetriever';
  }

  lc_namespace = ['hisrag', 'retrievers'];
  /** The retriever's registry name (`hnsw`, `bm25`, …); also LangChain's run name. */
  override name: string;
  readonly depthDependent?: boolean;
  /** Present when the wrapped retriever has it (callers test for it, as on any Retriever). */
  readonly retrieveBatch?: Retriever['retrieveBatch'];
  readonly firstStage?: Retriever['firstStage'];
  readonly relevance?: Retriever['relevance'];
  readonly k: number;
  private readonly inner: Retriever;
  private readonly query: Omit<RetrievalQuery, 'text'>;

  constructor(fields: LangChainRetrieverInput) {
    super(fields);
    // Wrapping a wrapper would add a layer per call; share the innermost retriever instead.
    this.inner = fields.retriever instanceof HisragLangChainRetriever ? fields.retriever.inner : fields.retriever;
    this.name = this.inner.name;
    this.depthDependent = this.inner.depthDependent;
    const inner = this.inner;
    if (inner.retrieveBatch) this.retrieveBatch = (queries, k) => inner.retrieveBatch!(queries, k);
    if (inner.firstStage) this.firstStage = (query) => inner.firstStage!(query);
    if (inner.relevance) this.relevance = (query, texts) => inner.relevance!(query, texts);
    this.k = fields.k ?? DEFAULT_LANGCHAIN_K;
    if (!Number.isInteger(this.k) || this.k <= 0) throw new RangeError(`k must be a positive integer, got ${this.k}`);
    this.query = fields.query ?? {};
  }

  /** The same retriever with another depth or fixed query fields (shares the open index; closing either closes it). */
  withSearch(search: LangChainSearch): HisragLangChainRetriever {
    return new HisragLangChainRetriever({
      retriever: this.inner,
      k: search.k ?? this.k,
      query: { ...this.query, ...search.query },
      callbacks: this.callbacks,
      tags: this.tags,
      metadata: this.metadata,
      verbose: this.verbose,
    });
  }

  retrieve(query: RetrievalQuery, k: number): Promise<RetrievedChunk[]> {
    return this.inner.retrieve(query, k);
  }

  describe(): RetrieverDescription {
    return this.inner.describe();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  override async _getRelevantDocuments(text: string): Promise<Document<RetrievedChunkMetadata>[]> {
    const hits = await this.inner.retrieve({ ...this.query, text }, this.k);
    return hits.map(chunkToDocument);
  }
}

/** Every retriever handed out is a `HisragLangChainRetriever` (idempotent). */
export function asLangChainRetriever(retriever: Retriever, search: LangChainSearch = {}): HisragLangChainRetriever {
  if (retriever instanceof HisragLangChainRetriever && search.k === undefined && search.query === undefined) return retriever;
  return new HisragLangChainRetriever({ retriever, ...search });
}
