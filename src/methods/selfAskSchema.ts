import { z } from 'zod';
import { readerParamsSchema } from './reader.js';
import type { ComponentSchema } from '../registry.js';

export const SelfAskParamsSchema = readerParamsSchema(['followUp', 'intermediate', 'answer'], {
  maxFollowUps: z.number().int().min(1).max(20).default(3).describe('Follow-up questions at most before the final answer'),
});
export type SelfAskParams = z.infer<typeof SelfAskParamsSchema>;

export const selfAskSchema: ComponentSchema<SelfAskParams> = {
  name: 'self-ask',
  description: 'Self-Ask: follow-up questions, each answered from its own retrieval, then the final answer; up to maxFollowUps retrievals, 2 × maxFollowUps + 2 generations',
  params: SelfAskParamsSchema,
};
