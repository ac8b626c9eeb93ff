import { z } from 'zod';
import { CausalLmParamsSchema } from './compression/causalLmParams.js';
import { readerParamsSchema } from './reader.js';
import type { ComponentSchema } from '../registry.js';

export const CompressParamsSchema = readerParamsSchema(['answer'], {
  scorer: CausalLmParamsSchema.describe('The small causal LM that scores each context token\'s self-information'),
  ratio: z.number().gt(0).max(1).optional().describe('Share of the context\'s tokens (the scorer\'s) kept: 0.3 keeps the most informative 30%'),
  budgetK: z.number().int().positive().optional().describe('Or: keep as many tokens as the first `budgetK` passages hold — "RAG@100 compressed to the budget of RAG@20"'),
}).refine((p) => (p.ratio === undefined) !== (p.budgetK === undefined), { message: 'give exactly one of ratio (share of tokens kept) and budgetK (the token budget of the first budgetK passages)', path: ['ratio'] });
export type CompressParams = z.infer<typeof CompressParamsSchema>;

export const compressSchema: ComponentSchema<CompressParams> = {
  name: 'compress',
  description: 'context compression (Selective-Context / LongLLMLingua): a small causal LM keeps the most informative tokens of the k passages, to a ratio or to the budget of the first budgetK; 1 retrieval, 1 generation',
  params: CompressParamsSchema,
};
