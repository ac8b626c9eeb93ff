import { z } from 'zod';
import type { ComponentSchema } from '../../registry.js';

export const LlmJudgeParams = z.strictObject({
  generator: z.looseObject({ name: z.string() }).describe('A generator spec (`{ name, ...params }`) resolved through the generators registry; use temperature 0'),
  retries: z.number().int().min(0).default(2).describe('Retries of a judge call that fails or lacks a verdict for an item'),
});

export const llmJudgeSchema: ComponentSchema<z.infer<typeof LlmJudgeParams>> = {
  name: 'llm',
  description: 'LLM judge (professor of Chinese history), one 0/1 verdict line per rubric item; unparseable outputs retried then reported as failures.',
  params: LlmJudgeParams,
};
