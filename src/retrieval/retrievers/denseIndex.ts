import { z } from 'zod';
import { ComponentSpecSchema } from '../../index/manifest.js';
import type { OpenedIndex } from '../../index/openIndex.js';
import type { RetrieverContext } from '../registry.js';

/** Params shared by dense retrievers: the index directory and an optional query-embedder override. */
export const denseIndexParams = {
  index: z.string().min(1),
  /** Registry spec of the query embedder; default: the one recorded in the index manifest. */
  embedder: ComponentSpecSchema.optional(),
};

export async function openDenseIndex(
  params: { index: string; embedder?: z.infer<typeof ComponentSpecSchema> },
  context: RetrieverContext,
): Promise<OpenedIndex> {
  return context.openIndex(params.index, { embedder: params.embedder ?? context.embedder });
}
