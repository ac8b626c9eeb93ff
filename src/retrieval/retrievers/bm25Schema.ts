import { z } from 'zod';
import type { ComponentSchema } from '../../registry.js';

export const Bm25ParamsSchema = z
  .object({
    index: z.string().min(1).describe('Folder of a bm25 index (`hisrag index build`)'),
    k1: z.number().nonnegative().optional().describe('BM25 term-frequency saturation (default: the index\'s)'),
    b: z.number().min(0).max(1).optional().describe('BM25 length normalisation, 0–1 (default: the index\'s)'),
  })
  .strict();
export type Bm25Params = z.infer<typeof Bm25ParamsSchema>;

export const bm25Schema: ComponentSchema<Bm25Params> = {
  name: 'bm25',
  description: 'BM25 (Okapi, Lucene idf) over jieba terms and optional CJK bigrams',
  params: Bm25ParamsSchema,
};
