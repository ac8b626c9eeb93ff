import { z } from 'zod';
import { ComponentSpecSchema } from '../../runFiles/indexManifest.js';
import type { ComponentSchema } from '../../registry.js';

export const LangchainHnswlibParamsSchema = z
  .object({
    index: z.string().min(1).optional().describe('A hisrag hnsw or exact index: its stored chunks and vectors fill the HNSWLib store (no re-embedding)'),
    directory: z.string().min(1).optional().describe('A saved HNSWLib store (`hnswlib.index`, `docstore.json`, `args.json`): loaded when present; else the store built from `index` is saved here'),
    // Needed when only `directory` is given.
    embedder: ComponentSpecSchema.optional().describe('Query embedder spec; default: the index\'s'),
    efSearch: z.number().int().positive().optional().describe('hnswlib\'s query breadth (LangChain leaves hnswlib\'s default, 10, which hnswlib raises to k)'),
  })
  .strict()
  .refine((p) => p.index !== undefined || p.directory !== undefined, { message: 'give an index, a directory, or both' });
export type LangchainHnswlibParams = z.infer<typeof LangchainHnswlibParamsSchema>;

export const langchainHnswlibSchema: ComponentSchema<LangchainHnswlibParams> = {
  name: 'langchain-hnswlib',
  description: "@langchain/community's HNSWLib store (hnswlib-node), over a hisrag index's vectors or a saved HNSWLib directory",
  params: LangchainHnswlibParamsSchema,
};
