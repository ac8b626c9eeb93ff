import { z } from 'zod';
import { readerParamsSchema } from './reader.js';
import type { ComponentSchema } from '../registry.js';

export const SureParamsSchema = readerParamsSchema(['candidates', 'summary', 'validity', 'rank'], {
  candidates: z.number().int().min(1).max(10).default(3).describe('Candidate answers asked for (at most)'),
});
export type SureParams = z.infer<typeof SureParamsSchema>;

export const sureSchema: ComponentSchema<SureParams> = {
  name: 'sure',
  description: 'SuRe: candidates, candidate-conditioned summaries, validity checks, pairwise ranking; 1 retrieval, 1 + 2n + n(n−1)/2 generations',
  params: SureParamsSchema,
};
