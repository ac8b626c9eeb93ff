import { z } from 'zod';
import { RRF_K } from '../retrieval/fusion.js';
import { readerParamsSchema } from './reader.js';
import type { ComponentSchema } from '../registry.js';

export const RagFusionParamsSchema = readerParamsSchema(['queries', 'answer'], {
  queries: z.number().int().min(1).max(10).default(4).describe('Queries the model is asked for (at most; RAG-Fusion\'s default is 4, MultiQueryRetriever\'s 3)'),
  includeQuestion: z.boolean().default(true).describe('Search with the original question too (RAG-Fusion does; MultiQueryRetriever\'s `include_original`)'),
  rrfK: z.number().positive().default(RRF_K).describe('The constant c of reciprocal-rank fusion, Σ 1 / (c + rank)'),
});
export type RagFusionParams = z.infer<typeof RagFusionParamsSchema>;

export const ragFusionSchema: ComponentSchema<RagFusionParams> = {
  name: 'rag-fusion',
  description: 'multi-query / RAG-Fusion: n model-written queries (and the question) each retrieve k, lists fused by reciprocal rank, top k read; up to n + 1 retrievals, 2 generations',
  params: RagFusionParamsSchema,
};
