import { z } from 'zod';
import { readerParamsSchema } from './reader.js';
import type { ComponentSchema } from '../registry.js';

export const FlareParamsSchema = readerParamsSchema(['write', 'question'], {
  threshold: z.number().gt(0).lt(1).default(0.4).describe('θ: a look-ahead sentence with any token below this probability triggers retrieval'),
  query: z.enum(['masked', 'question']).default('masked').describe('Query of a triggered retrieval: the sentence with its low-confidence tokens masked (FLARE-direct), or a question the model asks about them'),
  lookAheadTokens: z.number().int().min(8).max(1024).default(64).describe('Tokens of a look-ahead (FLARE keeps its first sentence)'),
  maxSentences: z.number().int().min(1).max(50).default(6).describe('Sentences at most; the answer is what was written by then'),
  retrieveFirst: z.boolean().default(true).describe('Retrieve with the question before the first sentence (the paper does)'),
});
export type FlareParams = z.infer<typeof FlareParamsSchema>;

export const flareSchema: ComponentSchema<FlareParams> = {
  name: 'flare',
  description: 'FLARE: look-ahead sentence with logprobs; a token below θ triggers retrieval (masked sentence or generated question) and the sentence is regenerated; needs logprobs',
  params: FlareParamsSchema,
};
