import { z } from 'zod';
import { denseIndexParams } from './denseIndexParams.js';
import type { ComponentSchema } from '../../registry.js';

export const ExactParamsSchema = z.object(denseIndexParams).strict();
export type ExactParams = z.infer<typeof ExactParamsSchema>;

export const exactSchema: ComponentSchema<ExactParams> = {
  name: 'exact',
  description: 'dense retrieval by exhaustive search over the stored vectors (ground truth for HNSW recall)',
  params: ExactParamsSchema,
};
