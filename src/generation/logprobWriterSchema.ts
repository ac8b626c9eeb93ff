import type { z } from 'zod';
import type { ComponentSchema } from '../registry.js';
import { ExtractiveParamsSchema } from './extractiveSchema.js';

/** Offline stand-in for FLARE's model: the extractive stand-in's params. */
export const logprobWriterSchema: ComponentSchema<z.infer<typeof ExtractiveParamsSchema>> = {
  name: 'logprob-writer',
  description: 'Offline stand-in for a model with token logprobs (FLARE): confident where a passage supports a sentence, unsure where it guesses.',
  params: ExtractiveParamsSchema,
};
