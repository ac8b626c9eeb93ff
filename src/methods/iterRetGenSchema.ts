import { z } from 'zod';
import { readerParamsSchema } from './reader.js';
import type { ComponentSchema } from '../registry.js';

export const IterRetGenParamsSchema = readerParamsSchema(['answer'], {
  rounds: z.number().int().min(1).max(20).default(3).describe('Retrieve → generate rounds; the last round\'s answer counts'),
});
export type IterRetGenParams = z.infer<typeof IterRetGenParamsSchema>;

export const iterRetGenSchema: ComponentSchema<IterRetGenParams> = {
  name: 'iter-retgen',
  description: 'Iter-RetGen: rounds of retrieve → generate, query = question + previous answer; `rounds` retrievals and generations',
  params: IterRetGenParamsSchema,
};
