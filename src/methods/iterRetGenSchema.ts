import { z } from 'zod';
import { ReaderParamsShape } from './reader.js';
import { promptOverridesSchema } from './prompts.js';
import type { ComponentSchema } from '../registry.js';

export const IterRetGenParamsSchema = z
  .object({
    rounds: z.number().int().min(1).max(20).default(3).describe('Retrieve → generate rounds; the last round\'s answer counts'),
    ...ReaderParamsShape,
    prompts: promptOverridesSchema(['answer']),
  })
  .strict();
export type IterRetGenParams = z.infer<typeof IterRetGenParamsSchema>;

export const iterRetGenSchema: ComponentSchema<IterRetGenParams> = {
  name: 'iter-retgen',
  description: 'Iter-RetGen: rounds of retrieve → generate, query = question + previous answer; `rounds` retrievals and generations',
  params: IterRetGenParamsSchema,
};
