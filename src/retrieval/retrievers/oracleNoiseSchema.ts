import { z } from 'zod';
import { RetrieverSpecSchema } from '../retrieverContext.js';
import type { ComponentSchema } from '../../registry.js';

export const OracleNoiseParamsSchema = z
  .object({
    index: z.string().min(1).describe('Index the gold chunks and the noise come from'),
    noise: z.enum(['random', 'hard']).default('random').describe('Distractors: `random` chunks, or `hard` negatives (the best non-gold chunks of `base`)'),
    base: RetrieverSpecSchema.optional().describe('The retriever whose best non-gold chunks are the `hard` noise'),
    goldPosition: z.enum(['first', 'last', 'middle', 'random']).default('random').describe('Where the gold chunks go among the noise: `first`, `last`, `middle` or `random`'),
    seed: z.number().int().optional().describe('Seed of the random noise and positions (default: the run\'s seed)'),
  })
  .strict()
  .refine((p) => p.noise !== 'hard' || p.base, { message: 'hard negatives need a base retriever', path: ['base'] });
export type OracleNoiseParams = z.infer<typeof OracleNoiseParamsSchema>;

export const oracleNoiseSchema: ComponentSchema<OracleNoiseParams> = {
  name: 'oracle+noise',
  description: 'control: gold evidence padded to k with random or hard-negative chunks, gold placed first/last/middle/random',
  params: OracleNoiseParamsSchema,
};
