import { z } from 'zod';
import { TemplateOverrideSchema } from '../templateOverrides.js';
import { FINAL_ANSWER_MARKER } from '../templates/cot.js';
import type { ComponentSchema } from '../../registry.js';

export const CotParamsSchema = TemplateOverrideSchema.extend({
  marker: z.string().min(1).default(FINAL_ANSWER_MARKER).describe('The final answer follows the last occurrence of this marker; `finalAnswer()` returns it'),
}).strict();
export type CotParams = z.infer<typeof CotParamsSchema>;

export const cotSchema: ComponentSchema<CotParams> = {
  name: 'cot',
  description: 'Chain of thought: step-by-step analysis, final answer after a marker; no retrieval.',
  params: CotParamsSchema,
};
