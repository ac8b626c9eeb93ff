import { z } from 'zod';
import { BenchmarkFilterSchema } from '../filters.js';
import { MetadataFieldsSchema } from '../recordFields.js';
import { labelSchema, type ComponentSchema } from '../../registry.js';

export const ProHistParamsSchema = BenchmarkFilterSchema.extend({
  file: z.string().min(1).describe('ProHist-Bench JSON (array of records) or JSONL'),
  label: labelSchema().default('prohist').describe('Name recorded with each item (`benchmark` column); default `prohist`'),
  onUnscorable: z.enum(['error', 'skip']).default('error').describe('A record its metric cannot score (an open question without rubrics): `error` (default) stops with the file, record and field; `skip` leaves it out and counts it'),
  metadata: MetadataFieldsSchema.describe('Record fields of one\'s own to keep (as meta and groups); any other field outside the release\'s schema is refused'),
}).strict();
export type ProHistParams = z.infer<typeof ProHistParamsSchema>;

export const proHistSchema: ComponentSchema<ProHistParams> = {
  name: 'prohist',
  description: 'ProHist-Bench JSON or JSONL (rubric questions T1–T4 and multiple choice).',
  params: ProHistParamsSchema,
};
