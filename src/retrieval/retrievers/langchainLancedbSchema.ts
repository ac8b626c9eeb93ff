import { z } from 'zod';
import { ComponentSpecSchema } from '../../runFiles/indexManifest.js';
import type { ComponentSchema } from '../../registry.js';

export const LangchainLancedbParamsSchema = z
  .object({
    // A lancedb index's table is searched as it is; a dense index's chunks and vectors are copied (not re-embedded).
    index: z.string().min(1).describe('A hisrag index'),
    // Reused when its table exists.
    uri: z.string().min(1).optional().describe('Where the copy goes (LanceDB URI); default: a temporary folder removed on close'),
    table: z.string().regex(/^[\w.-]+$/).default('langchain').describe('Name of the LanceDB table the chunks are copied to'),
    embedder: ComponentSpecSchema.optional().describe('Embedder of the questions (default: the index\'s own)'),
  })
  .strict();
export type LangchainLancedbParams = z.infer<typeof LangchainLancedbParamsSchema>;

export const langchainLancedbSchema: ComponentSchema<LangchainLancedbParams> = {
  name: 'langchain-lancedb',
  description: "@langchain/community's LanceDB store, over a hisrag lancedb index's table or a copy of a dense index's vectors",
  params: LangchainLancedbParamsSchema,
};
