import { z } from 'zod';
import type { RegistryEntry } from '../../registry.js';
import { resolveTemplate, TemplateOverrideSchema } from '../templateOverrides.js';
import { TemplateStrategy } from '../templateStrategy.js';
import { cotTemplate, FINAL_ANSWER_MARKER } from '../templates/cot.js';
import type { PromptStrategy } from '../types.js';

export const CotParamsSchema = TemplateOverrideSchema.extend({
  marker: z.string().min(1).default(FINAL_ANSWER_MARKER).describe('The final answer follows the last occurrence of this marker; `finalAnswer()` returns it'),
}).strict();
export type CotParams = z.infer<typeof CotParamsSchema>;

export const cotStrategy: RegistryEntry<CotParams, PromptStrategy, void> = {
  name: 'cot',
  description: 'Chain of thought: step-by-step analysis, final answer after a marker; no retrieval.',
  params: CotParamsSchema,
  async create(params) {
    const template = await resolveTemplate(cotTemplate, params, 'cot', ['question']);
    return new TemplateStrategy({ name: 'cot', template, instructions: params.instructions, finalAnswerMarker: params.marker });
  },
};
