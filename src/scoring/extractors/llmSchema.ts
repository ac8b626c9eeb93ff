import { z } from 'zod';
import type { ComponentSchema } from '../../registry.js';

export const LlmExtractorParams = z.strictObject({
  generator: z.looseObject({ name: z.string() }).describe('A generator spec (`{ name, ...params }`) resolved through the generators registry'),
  retries: z.number().int().min(0).default(2).describe('Retries of an extraction call that fails (or comes back empty)'),
});

export const llmExtractorSchema: ComponentSchema<z.infer<typeof LlmExtractorParams>> = {
  name: 'llm',
  description: 'Per-answer-type extraction prompts sent to an LLM generator; output normalised to the type format.',
  params: LlmExtractorParams,
};
