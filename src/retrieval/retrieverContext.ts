import { z } from 'zod';
import type { TextEmbedder } from '../embedding/types.js';
import type { OpenedIndex, OpenIndexOptions } from '../index/openIndex.js';
import type { Retriever } from './types.js';

/** `{ name, ...params }` of a retriever, as in an experiment config's `retrieval.retriever`. */
export const RetrieverSpecSchema = z.object({ name: z.string().min(1) }).catchall(z.unknown());
export type RetrieverSpec = z.infer<typeof RetrieverSpecSchema>;

/** What every retriever may use besides its own params. */
export interface RetrieverContext {
  /** Run seed: control retrievers (random, oracle+noise) derive each item's draw from it and the item id. */
  seed: number;
  /** Creates a child retriever through the same registry (hybrid, oracle+noise's hard-negative base). */
  createRetriever(spec: RetrieverSpec, path: string): Promise<Retriever>;
  /** Opens an index directory; dense retrievers pass their query-embedder override. */
  openIndex(dir: string, options?: OpenIndexOptions): Promise<OpenedIndex>;
  /** A query embedder shared by dense retrievers that name no embedder of their own (checked against each index). */
  embedder?: TextEmbedder;
}
