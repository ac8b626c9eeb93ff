import { z } from 'zod';
import { denseIndexParams } from './denseIndexParams.js';
import type { ComponentSchema } from '../../registry.js';

export const HnswParamsSchema = z.object({ ...denseIndexParams, efSearch: z.number().int().positive().optional().describe('HNSW search breadth (higher: better recall, slower); default: the value tuned for the index at build time') }).strict();
export type HnswParams = z.infer<typeof HnswParamsSchema>;

export const hnswSchema: ComponentSchema<HnswParams> = {
  name: 'hnsw',
  description: 'dense retrieval: HNSW graph (hnswlib or usearch, as built) over the index vectors; exact search within one document',
  params: HnswParamsSchema,
};
