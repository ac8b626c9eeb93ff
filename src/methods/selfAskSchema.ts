import { z } from 'zod';
import { ReaderParamsShape } from './reader.js';
import { promptOverridesSchema } from './prompts.js';
import type { ComponentSchema } from '../registry.js';

export const SelfAskParamsSchema = z
  .object({
    maxFollowUps: z.number().int().min(1).max(20).default(3).describe('Follow-up questions at most before the final answer'),
    ...ReaderParamsShape,
    prompts: promptOverridesSchema(['followUp', 'intermediate', 'answer']),
  })
  .strict();
export type SelfAskParams = z.infer<typeof SelfAskParamsSchema>;

export const selfAskSchema: ComponentSchema<SelfAskParams> = {
  name: 'self-ask',
  description: 'Self-Ask: follow-up questions, each answered from its own retrieval, then the final answer; up to maxFollowUps retrievals, 2 × maxFollowUps + 2 generations',
  params: SelfAskParamsSchema,
};
