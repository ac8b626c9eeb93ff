import { z } from 'zod';
import type { Embeddings } from '@langchain/core/embeddings';

/** Everything that makes two embedders' vectors comparable; stored in index manifests. */
export const EmbedderIdentitySchema = z.object({
  /** Model id (`Xenova/bge-large-zh-v1.5`), local directory, or remote `<baseURL>#<model>`. */
  model: z.string(),
  dimension: z.number().int().positive(),
  pooling: z.enum(['cls', 'mean']),
  normalize: z.boolean(),
  queryPrefix: z.string(),
});
export type EmbedderIdentity = z.infer<typeof EmbedderIdentitySchema>;

/**
 * hisrag's embedder: a LangChain `Embeddings` (embedDocuments / embedQuery — queries get the
 * query prefix, documents do not) that also states its identity and can be released.
 */
export interface TextEmbedder extends Embeddings {
  identity(): Promise<EmbedderIdentity>;
  dispose(): Promise<void>;
}
