import type { DocumentInterface } from '@langchain/core/documents';
import type { BaseRetrieverInterface } from '@langchain/core/retrievers';
import type { VectorStoreInterface } from '@langchain/core/vectorstores';
import { z } from 'zod';
import { InputError } from '../../errors.js';
import type { RegistryEntry } from '../../registry.js';
import type { RetrieverContext } from '../retrieverContext.js';
import type { RetrievedChunk, Retriever, RetrieverDescription } from '../types.js';
import { documentToChunk } from './documentChunk.js';

/** How a LangChain store's reported score becomes hisrag's (higher is better). */
export type LangChainScore = 'similarity' | 'distance' | ((reported: number, document: DocumentInterface) => number);

/** A LangChain component as a hisrag retriever, with what hisrag needs besides it. */
export interface LangChainSource {
  /** A `VectorStore` (searched with `similaritySearchWithScore`) or any `BaseRetriever` (`invoke`). */
  source: VectorStoreInterface | BaseRetrieverInterface;
  /**
   * The store's filter for "chunks of document `docId`" (document scope, LongHisDoc). Without it a
   * document-scoped query is refused with an error rather than answered from the whole corpus.
   */
  documentFilter?: (docId: string) => unknown;
  /**
   * `similarity` (default): the store's score as it is; `distance`: lower is better, score = 1 − d
   * (cosine or inner-product distance); or a function. BaseRetrievers report none: `metadata.score`
   * when it is a number, else 0.
   */
  score?: LangChainScore;
  /** Extra fields for run manifests. */
  describe?: () => Partial<RetrieverDescription>;
  /** Releases what the factory opened (connections, embedders, temporary folders). */
  close?: () => Promise<void>;
}

export type LangChainFactory<Params> = (
  params: Params,
  context: RetrieverContext,
) => VectorStoreInterface | BaseRetrieverInterface | LangChainSource | Promise<VectorStoreInterface | BaseRetrieverInterface | LangChainSource>;

export interface FromLangChainOptions<Params> {
  description?: string;
  /** Config params of this retriever (zod; strict objects reject unknown keys). Default: none allowed. */
  params?: z.ZodType<Params>;
}

function isVectorStore(value: unknown): value is VectorStoreInterface {
  return typeof (value as VectorStoreInterface)?.similaritySearchWithScore === 'function';
}

function isSource(value: unknown): value is LangChainSource {
  return typeof value === 'object' && value !== null && 'source' in value;
}

function scoreFunction(score: LangChainScore | undefined): (reported: number, document: DocumentInterface) => number {
  if (typeof score === 'function') return score;
  if (score === 'distance') return (reported) => 1 - reported;
  return (reported) => reported;
}

/**
 * Any LangChain `VectorStore` or `BaseRetriever` as a hisrag retriever, registered by name:
 * `retrievers.register(fromLangChain('my-store', (params, context) => store))`. A config then names it
 * like any built-in (`retrieval.retriever: { name: my-store, … }`), and runs record its description.
 */
export function fromLangChain<Params = Record<string, never>>(
  name: string,
  factory: LangChainFactory<Params>,
  options: FromLangChainOptions<Params> = {},
): RegistryEntry<Params, Retriever, RetrieverContext> {
  return {
    name,
    description: options.description ?? `LangChain component "${name}"`,
    params: options.params ?? (z.object({}).strict() as unknown as z.ZodType<Params>),
    async create(params, context) {
      const made = await factory(params, context);
      return langChainRetriever(name, isSource(made) ? made : { source: made });
    },
  };
}

/** Wraps one LangChain component (see `fromLangChain`). */
export function langChainRetriever(name: string, adapter: LangChainSource): Retriever {
  const { source } = adapter;
  const toScore = scoreFunction(adapter.score);
  const kind = isVectorStore(source) ? `VectorStore ${source._vectorstoreType()}` : `BaseRetriever ${source.getName?.() ?? ''}`.trim();
  return {
    name,
    async retrieve(query, k): Promise<RetrievedChunk[]> {
      if (query.docId && !adapter.documentFilter) {
        throw new InputError(`retriever ${name} (${kind}) cannot restrict a search to document "${query.docId}": it has no document filter`);
      }
      let scored: [DocumentInterface, number][];
      if (isVectorStore(source)) {
        const filter = query.docId ? adapter.documentFilter!(query.docId) : undefined;
        scored = (await source.similaritySearchWithScore(query.text, k, filter as never)).map(([document, reported]) => [
          document,
          toScore(reported, document),
        ]);
      } else {
        if (query.docId) throw new InputError(`retriever ${name} (${kind}): a BaseRetriever takes no document filter per query`);
        const documents = (await source.invoke(query.text)).slice(0, k);
        scored = documents.map((document) => [document, typeof document.metadata.score === 'number' ? document.metadata.score : 0]);
      }
      return scored.map(([document, score], i) => {
        if (!Number.isFinite(score)) throw new InputError(`retriever ${name} (${kind}) reported a non-numeric score for hit ${i + 1}`);
        return { ...documentToChunk(document), score, rank: i + 1 };
      });
    },
    describe: () => ({ name, langchain: kind, ...adapter.describe?.() }),
    close: async () => adapter.close?.(),
  };
}
