import { z } from 'zod';
import type { ComponentSchema } from '../../registry.js';

export const OracleParamsSchema = z.object({ index: z.string().min(1).describe('Index whose chunks are searched for the gold evidence') }).strict();
export type OracleParams = z.infer<typeof OracleParamsSchema>;

export const oracleSchema: ComponentSchema<OracleParams> = {
  name: 'oracle',
  description: 'control: the gold evidence chunks or pages of each item (score 1), nothing else',
  params: OracleParamsSchema,
};
