import { z } from 'zod';
import { readerParamsSchema } from './reader.js';
import type { ComponentSchema } from '../registry.js';

export const QueryRewriteParamsSchema = readerParamsSchema(['rewrite', 'answer'], {});
export type QueryRewriteParams = z.infer<typeof QueryRewriteParamsSchema>;

export const queryRewriteSchema: ComponentSchema<QueryRewriteParams> = {
  name: 'query-rewrite',
  description: 'rewrite–retrieve–read: the model rewrites the question into a search query, retrieve k with it, answer; 1 retrieval, 2 generations',
  params: QueryRewriteParamsSchema,
};
