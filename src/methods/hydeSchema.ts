import { z } from 'zod';
import { readerParamsSchema } from './reader.js';
import type { ComponentSchema } from '../registry.js';

export const HydeParamsSchema = readerParamsSchema(['hypothesis', 'answer'], {
  hypotheses: z.number().int().min(1).max(8).default(1).describe('Hypothetical passages written per question (the paper samples several and averages them)'),
  includeQuestion: z.boolean().default(true).describe('Search with the question too (the paper averages the question\'s encoding with the hypotheses\')'),
});
export type HydeParams = z.infer<typeof HydeParamsSchema>;

export const hydeSchema: ComponentSchema<HydeParams> = {
  name: 'hyde',
  description: 'HyDE: write a hypothetical answer passage, retrieve k with it (and the question), answer; 1 retrieval, hypotheses + 1 generations',
  params: HydeParamsSchema,
};
