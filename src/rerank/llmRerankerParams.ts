import { z } from 'zod';
import { componentSpec } from '../registry.js';

export const LlmRerankerParamsSchema = z
  .object({
    generator: componentSpec('generator').describe('Any registered generator (an OpenAI-compatible chat model), e.g. `{ name: openai, baseURL, model, apiKeyEnv }`'),
    maxPassageChars: z.number().int().positive().default(300).describe('Each candidate is shown cut to this many characters (prompt size grows with candidates × this)'),
  })
  .strict();
export type LlmRerankerParams = z.output<typeof LlmRerankerParamsSchema>;
