import { z } from 'zod';
import type { ComponentSchema } from '../../registry.js';

export const RandomParamsSchema = z.object({ index: z.string().min(1).describe('Index the chunks are drawn from'), seed: z.number().int().optional().describe('Seed of the draw (default: the run\'s seed)') }).strict();
export type RandomParams = z.infer<typeof RandomParamsSchema>;

export const randomSchema: ComponentSchema<RandomParams> = {
  name: 'random',
  description: 'control: k chunks drawn uniformly at random, seeded per item',
  params: RandomParamsSchema,
};
