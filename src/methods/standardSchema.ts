import type { ComponentSchema } from '../registry.js';
import { RagParamsSchema, type RagParams } from '../prompting/strategies/ragSchema.js';

/** Standard RAG: the `rag` strategy as a method, with its params. */
export const standardSchema: ComponentSchema<RagParams> = {
  name: 'standard',
  description: 'retrieve k once, prompt, answer (the rag strategy); 1 retrieval, 1 generation',
  params: RagParamsSchema,
};
