import { z } from 'zod';
import type { ComponentSchema } from '../registry.js';
import { ExtractiveParamsSchema } from './extractiveSchema.js';

export const SearchReasonerParamsSchema = ExtractiveParamsSchema.extend({
  reasoningOutput: z.enum(['inline', 'separate']).default('inline').describe('Where its reasoning goes: inline (`<think>…</think>` in the content) or apart, as `reasoning_content` endpoints return it'),
});
export type SearchReasonerParams = z.infer<typeof SearchReasonerParamsSchema>;
export const searchReasonerSchema: ComponentSchema<SearchReasonerParams> = {
  name: 'search-reasoner',
  description: 'Offline stand-in for a reasoning model that searches (query tags by the stop sequence, answers from inserted results).',
  params: SearchReasonerParamsSchema,
};
