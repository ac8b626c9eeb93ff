import { z } from 'zod';
import { denseIndexParams } from './denseIndexParams.js';
import type { ComponentSchema } from '../../registry.js';

export const LanceDbParamsSchema = z
  .object({
    ...denseIndexParams,
    nprobes: z.number().int().positive().optional().describe('IVF partitions searched per query (IVF-PQ index only; more: better recall, slower)'),
    refineFactor: z.number().int().positive().optional().describe('Re-rank refineFactor × k candidates exactly after the IVF-PQ search'),
  })
  .strict();
export type LanceDbParams = z.infer<typeof LanceDbParamsSchema>;

export const lancedbSchema: ComponentSchema<LanceDbParams> = {
  name: 'lancedb',
  description: 'dense retrieval from a LanceDB table (IVF-PQ + refine for large tables, exact otherwise); on-disk, out-of-core',
  params: LanceDbParamsSchema,
};
