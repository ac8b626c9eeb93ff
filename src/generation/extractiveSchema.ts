import { z } from 'zod';
import type { ComponentSchema } from '../registry.js';

export const ExtractiveParamsSchema = z
  .object({
    maxChars: z.number().int().positive().default(200).describe('Length budget of the answer in characters'),
    minOverlap: z.number().int().positive().default(2).describe('A sentence must share at least this many distinct character bigrams with the question'),
    simplify: z.boolean().default(true).describe('Compare in simplified Chinese (OCR pages are often traditional)'),
    condenseChars: z.number().int().positive().default(400).describe('Length budget of a condensed context or summary (method steps that ask for one), in characters'),
    temperature: z.number().min(0).max(2).optional().describe('A sampling stand-in (repeated samples, `samples: n`): above 0, each answer ranks the context sentences by their overlap plus Gumbel noise of this scale — sampling sentences from softmax(overlap / temperature), the Gumbel-max trick — so answers vary between samples as a model\'s do at temperature > 0; omitted or 0: deterministic'),
    seed: z.number().int().optional().describe('With `temperature`: the noise is seeded by (seed, sample index, prompt), so a run repeats exactly'),
  })
  .strict();
export type ExtractiveParams = z.infer<typeof ExtractiveParamsSchema>;
export const extractiveSchema: ComponentSchema<ExtractiveParams> = {
  name: 'extractive',
  description: 'Offline baseline: the context sentences that overlap the question most (character bigrams).',
  params: ExtractiveParamsSchema,
};
