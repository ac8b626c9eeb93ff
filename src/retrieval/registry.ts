import { z } from 'zod';
import type { TextEmbedder } from '../embedding/types.js';
import { openIndex, type OpenedIndex, type OpenIndexOptions } from '../index/openIndex.js';
import { Registry } from '../registry.js';
import { asLangChainRetriever, type HisragLangChainRetriever } from './langchain/langchainRetriever.js';
import type { Retriever } from './types.js';

/** `{ name, ...params }` of a retriever, as in an experiment config's `retrieval.retriever`. */
export const RetrieverSpecSchema = z.object({ name: z.string().min(1) }).catchall(z.unknown());
export type RetrieverSpec = z.infer<typeof RetrieverSpecSchema>;

/** What every retriever may use besides its own params. */
export interface RetrieverContext {
  /** Run seed: control retrievers (random, oracle+noise) derive each item's draw from it and the item id. */
  seed: number;
  /** Creates a child retriever through the same registry (hybrid, oracle+noise's hard-negative base). */
  createRetriever(spec: RetrieverSpec, path: string): Promise<HisragLangChainRetriever>;
  /** Opens an index directory; dense retrievers pass their query-embedder override. */
  openIndex(dir: string, options?: OpenIndexOptions): Promise<OpenedIndex>;
  /** A query embedder shared by dense retrievers that name no embedder of their own (checked against each index). */
  embedder?: TextEmbedder;
}

/** The retriever registry: whatever an implementation returns is handed out as a `HisragLangChainRetriever`. */
export class RetrieverRegistry extends Registry<Retriever, RetrieverContext> {
  override async create(spec: { name: string } & Record<string, unknown>, context: RetrieverContext, path = this.stage): Promise<HisragLangChainRetriever> {
    return asLangChainRetriever(await super.create(spec, context, path));
  }
}

export const retrievers = new RetrieverRegistry('retriever');

export function createRetrieverContext(options: { seed?: number; embedder?: TextEmbedder } = {}): RetrieverContext {
  const context: RetrieverContext = {
    seed: options.seed ?? 0,
    embedder: options.embedder,
    createRetriever: (spec, path) => retrievers.create(spec, context, path),
    openIndex: (dir, openOptions) => openIndex(dir, openOptions),
  };
  return context;
}
