import { z } from 'zod';
import { PathSchema, ResponseMappingSchema } from './external/mapping.js';
import type { ComponentSchema } from '../registry.js';

export const OutputsParamsSchema = z
  .object({
    file: z.string().min(1).describe('JSONL, one answer per line (`{ itemId, answer, contexts?, usage? }`), or a JSON array of such records'),
    itemId: PathSchema.default('itemId').describe('Where a line names its question: the benchmark\'s item id, or `<benchmark>:<id>`'),
    response: ResponseMappingSchema.default({}).describe('Field names of the lines (answer `answer`, contexts `contexts`, context fields, usage)'),
    unknownItems: z.enum(['error', 'ignore']).default('error').describe('A line naming a question the run does not have: `error` (default), or `ignore` (a file of the whole benchmark, a run over part of it)'),
  })
  .strict();
export type OutputsParams = z.infer<typeof OutputsParamsSchema>;

export const outputsSchema: ComponentSchema<OutputsParams> = {
  name: 'outputs',
  description: "saved outputs of any system: a file of { itemId, answer, contexts?, usage? } lines, scored like any answer",
  params: OutputsParamsSchema,
};
