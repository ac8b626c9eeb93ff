import { z } from 'zod';
import { BenchmarkFilterSchema } from '../filters.js';
import { MetadataFieldsSchema } from '../recordFields.js';
import { labelSchema, type ComponentSchema } from '../../registry.js';

export const JsonlParamsSchema = BenchmarkFilterSchema.extend({
  file: z.string().min(1).describe('The JSONL file, one question per line'),
  label: labelSchema().default('jsonl').describe('Name recorded with each item (`benchmark` column)'),
  metadata: MetadataFieldsSchema.describe('Top-level record fields of one\'s own to keep (as meta and groups); any other unknown field is refused'),
}).strict();
export type JsonlParams = z.infer<typeof JsonlParamsSchema>;

export const jsonlSchema: ComponentSchema<JsonlParams> = {
  name: 'jsonl',
  description: 'Generic QA: JSONL (or a JSON array) of {id, question, answer | reference_answer, category?, gold_chunk_ids?, gold_spans?, gold_evidence?}.',
  params: JsonlParamsSchema,
};
