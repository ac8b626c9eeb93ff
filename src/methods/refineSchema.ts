import { z } from 'zod';
import { readerParamsSchema } from './reader.js';
import type { ComponentSchema } from '../registry.js';

export const RefineParamsSchema = readerParamsSchema(['condense', 'answer'], {
  mode: z.enum(['extractive', 'abstractive']).default('extractive').describe('`extractive`: keep the best sentences by the retriever\'s relevance; `abstractive`: the model condenses'),
  keep: z.number().int().positive().default(10).describe('Extractive: sentences kept (the best by relevance, in their original order)'),
});
export type RefineParams = z.infer<typeof RefineParamsSchema>;

export const refineSchema: ComponentSchema<RefineParams> = {
  name: 'refine',
  description: 'context refiner (RECOMP): extractive (best sentences by relevance) or abstractive (model condenses); 1 retrieval, 1–2 generations',
  params: RefineParamsSchema,
};
