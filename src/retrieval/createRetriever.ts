import type { HisragLangChainRetriever } from './langchain/langchainRetriever.js';
import { createRetrieverContext, retrievers, type RetrieverContext, type RetrieverSpec } from './registry.js';

/** Creates a retriever by spec with all implementations registered (import this, not the registry, to build one). */
export async function createRetriever(spec: RetrieverSpec, context: RetrieverContext = createRetrieverContext(), path = 'retriever'): Promise<HisragLangChainRetriever> {
  await import('./retrievers/all.js'); // loaded on use: some retrievers load native addons
  return retrievers.create(spec, context, path);
}
