import { z } from 'zod';
import { RRF_K } from '../fusion.js';
import { RetrieverSpecSchema } from '../retrieverContext.js';
import type { ComponentSchema } from '../../registry.js';

export const HybridParamsSchema = z
  .object({
    retrievers: z.array(RetrieverSpecSchema).min(2).describe('Two or more retriever specs whose rankings are fused'),
    fusion: z.enum(['rrf', 'weighted']).default('rrf').describe('`rrf` (reciprocal-rank fusion) or `weighted` (min-max normalised scores, weighted)'),
    weights: z.array(z.number().nonnegative()).optional().describe('One weight per child retriever (default all 1)'),
    rrfK: z.number().positive().default(RRF_K).describe('The RRF constant: a child\'s rank r contributes 1/(rrfK + r)'),
    candidates: z.number().int().positive().optional().describe('Chunks each child retriever contributes (default max(k, 100))'),
  })
  .strict()
  .refine((p) => !p.weights || p.weights.length === p.retrievers.length, {
    message: 'weights must have one entry per retriever',
    path: ['weights'],
  });
export type HybridParams = z.infer<typeof HybridParamsSchema>;

export const hybridSchema: ComponentSchema<HybridParams> = {
  name: 'hybrid',
  description: 'reciprocal-rank or weighted min-max score fusion of several retrievers',
  params: HybridParamsSchema,
};
