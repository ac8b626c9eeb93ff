import type { TextEmbedder } from '../embedding/types.js';
import { Registry } from '../registry.js';
import type { HisragLangChainRetriever } from './langchain/langchainRetriever.js';
import type { RetrieverContext } from './retrieverContext.js';
import { bm25Schema } from './retrievers/bm25Schema.js';
import { exactSchema } from './retrievers/exactSchema.js';
import { hnswSchema } from './retrievers/hnswSchema.js';
import { hybridSchema } from './retrievers/hybridSchema.js';
import { lancedbSchema } from './retrievers/lancedbSchema.js';
import { langchainHnswlibSchema } from './retrievers/langchainHnswlibSchema.js';
import { langchainLancedbSchema } from './retrievers/langchainLancedbSchema.js';
import { oracleNoiseSchema } from './retrievers/oracleNoiseSchema.js';
import { oracleSchema } from './retrievers/oracleSchema.js';
import { randomSchema } from './retrievers/randomSchema.js';
import type { Retriever } from './types.js';
import type { QueryVectorCacheOptions } from './queryVectorCache.js';

export { RetrieverSpecSchema, type RetrieverContext, type RetrieverSpec } from './retrieverContext.js';

/**
 * The retriever registry: `create` hands a retriever out as a LangChain `BaseRetriever`
 * (`HisragLangChainRetriever`); `createPlain` gives the retriever itself, which is what the
 * experiment engine and composite retrievers use, so that a run loads LangChain only when a
 * component of its own needs it.
 */
export class RetrieverRegistry extends Registry<Retriever, RetrieverContext> {
  override async create(spec: { name: string } & Record<string, unknown>, context: RetrieverContext, path = this.stage): Promise<HisragLangChainRetriever> {
    const retriever = await this.createPlain(spec, context, path);
    return (await import('./langchain/langchainRetriever.js')).asLangChainRetriever(retriever);
  }

  createPlain(spec: { name: string } & Record<string, unknown>, context: RetrieverContext, path = this.stage): Promise<Retriever> {
    return super.create(spec, context, path);
  }
}

export const retrievers = new RetrieverRegistry('retriever')
  .registerLazy(hnswSchema, async () => (await import('./retrievers/hnsw.js')).hnswRetriever.create)
  .registerLazy(exactSchema, async () => (await import('./retrievers/exact.js')).exactRetriever.create)
  .registerLazy(bm25Schema, async () => (await import('./retrievers/bm25.js')).bm25Retriever.create)
  .registerLazy(hybridSchema, async () => (await import('./retrievers/hybrid.js')).hybridRetriever.create)
  // Controls: the gold evidence, random chunks, gold among noise.
  .registerLazy(oracleSchema, async () => (await import('./retrievers/oracle.js')).oracleRetriever.create)
  .registerLazy(randomSchema, async () => (await import('./retrievers/random.js')).randomRetriever.create)
  .registerLazy(oracleNoiseSchema, async () => (await import('./retrievers/oracleNoise.js')).oracleNoiseRetriever.create)
  // Native addons and LangChain stores.
  .registerLazy(lancedbSchema, async () => (await import('./retrievers/lancedb.js')).lancedbRetriever.create)
  .registerLazy(langchainHnswlibSchema, async () => (await import('./retrievers/langchainHnswlib.js')).langchainHnswlibRetriever.create)
  .registerLazy(langchainLancedbSchema, async () => (await import('./retrievers/langchainLancedb.js')).langchainLancedbRetriever.create);

/** `queryVectors`: indexes answer their queries from that cache first (a dry run's plan; see withQueryVectorCache). */
export function createRetrieverContext(options: { seed?: number; embedder?: TextEmbedder; queryVectors?: QueryVectorCacheOptions } = {}): RetrieverContext {
  const { queryVectors } = options;
  const context: RetrieverContext = {
    seed: options.seed ?? 0,
    embedder: options.embedder,
    createRetriever: (spec, path) => retrievers.createPlain(spec, context, path),
    // Loaded on use: opening an index loads SQLite and the graph libraries.
    openIndex: async (dir, openOptions) => {
      const index = await (await import('../index/openIndex.js')).openIndex(dir, openOptions);
      if (!queryVectors) return index;
      const { withQueryVectorCache } = await import('./queryVectorCache.js');
      return withQueryVectorCache(index, openOptions?.embedder, queryVectors);
    },
  };
  return context;
}
