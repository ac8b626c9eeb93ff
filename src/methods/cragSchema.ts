import { z } from 'zod';
import { RetrieverSpecSchema } from '../retrieval/registry.js';
import { readerParamsSchema } from './reader.js';
import type { ComponentSchema } from '../registry.js';

export const CragParamsSchema = readerParamsSchema(['grade', 'answer'], {
  upper: z.number().min(0).max(1).default(0.6).describe('A passage graded at or above this (0–1, the judge\'s 0–10 over 10) makes the retrieval Correct'),
  lower: z.number().min(0).max(1).default(0.2).describe('Every passage graded below this makes it Incorrect; between the two: Ambiguous'),
  evaluator: z.object({ name: z.string().min(1) }).catchall(z.unknown()).optional().describe('The retrieval evaluator: absent, the model grades each passage (one call a passage); a reranker (`{ name: cross-encoder, model }`, the rerank stage\'s registry) scores them instead, each score through a logistic to 0–1 (a cross-encoder\'s logit, as the paper\'s fine-tuned T5 evaluator scores)'),
  fallback: RetrieverSpecSchema.describe('The retriever searched when the retrieval is Incorrect or Ambiguous (the paper\'s web search): `{ name, index, … }`'),
  fallbackK: z.number().int().positive().optional().describe('Passages the fallback returns; default the condition\'s k'),
  keepStrips: z.number().int().positive().default(8).describe('Knowledge refinement: strips (sentences) kept, the best by the retriever\'s relevance to the question, in their order'),
}).refine((p) => p.lower <= p.upper, { message: 'lower must not exceed upper', path: ['lower'] });
export type CragParams = z.infer<typeof CragParamsSchema>;

export const cragSchema: ComponentSchema<CragParams> = {
  name: 'crag',
  description: 'CRAG: an LLM (or a cross-encoder) grades each passage; correct → refine strips, incorrect → fallback retriever, ambiguous → both; 1–2 retrievals, k + 1 generations',
  params: CragParamsSchema,
};
