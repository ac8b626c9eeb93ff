import type { HisragLangChainRetriever } from './langchain/langchainRetriever.js';
import { createRetrieverContext, retrievers, type RetrieverContext, type RetrieverSpec } from './registry.js';

/** Creates a retriever by spec (its implementation's module is imported now: some load native addons). */
export async function createRetriever(spec: RetrieverSpec, context: RetrieverContext = createRetrieverContext(), path = 'retriever'): Promise<HisragLangChainRetriever> {
  return retrievers.create(spec, context, path);
}
