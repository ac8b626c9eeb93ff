import { z } from 'zod';
import { RagParamsSchema } from '../prompting/strategies/ragSchema.js';
import { PROMPT_OVERRIDES_DESCRIPTION, PromptOverrideSchema } from './prompts.js';
import type { ComponentSchema } from '../registry.js';

export const AdaptiveParamsSchema = RagParamsSchema.extend({
  prompts: z.object({ decide: PromptOverrideSchema.optional(), closedBook: PromptOverrideSchema.optional() }).strict().default({}).describe(PROMPT_OVERRIDES_DESCRIPTION),
}).strict();
export type AdaptiveParams = z.infer<typeof AdaptiveParamsSchema>;

export const adaptiveSchema: ComponentSchema<AdaptiveParams> = {
  name: 'adaptive',
  description: 'the model decides whether to retrieve (SKR / Adaptive-RAG): closed-book or standard RAG; 0–1 retrievals, 2 generations',
  params: AdaptiveParamsSchema,
};
