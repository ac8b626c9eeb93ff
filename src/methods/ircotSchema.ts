import { z } from 'zod';
import { FINAL_ANSWER_PREFIX } from '../prompting/taskFormat.js';
import { readerParamsSchema } from './reader.js';
import type { ComponentSchema } from '../registry.js';

export const IrcotParamsSchema = readerParamsSchema(['reason', 'conclude'], {
  maxSteps: z.number().int().min(1).max(50).default(5).describe('Reasoning steps at most; without a final answer by then, one more call asks for it'),
  maxPassages: z.number().int().positive().optional().describe('Passages kept in the prompt at most (the union of all retrievals, first retrieved first); default 3 × k'),
  finalAnswerPrefix: z.string().min(1).default(FINAL_ANSWER_PREFIX).describe('The model\'s final answer follows this marker'),
});
export type IrcotParams = z.infer<typeof IrcotParamsSchema>;

export const ircotSchema: ComponentSchema<IrcotParams> = {
  name: 'ircot',
  description: 'IRCoT: reasoning sentence ↔ retrieval until a final answer or maxSteps; up to maxSteps + 1 retrievals and generations',
  params: IrcotParamsSchema,
};
