import { z } from 'zod';
import { MetadataFieldsSchema } from '../recordFields.js';
import { BenchmarkFilterSchema } from '../filters.js';
import { labelSchema, type ComponentSchema } from '../../registry.js';

export const LongHisDocParamsSchema = BenchmarkFilterSchema.extend({
  file: z.string().min(1).describe('The QA file `{doc_id: [records]}` (LongHisDoc.json)'),
  ocrDir: z.string().min(1).optional().describe('`OCR_res/` of the release: `<doc_id>.json` per document; needed by `longhisdoc-full` and page corpora'),
  // Checked on load, before any model call, against the OCR's page counts and every item's pages.
  imageDir: z.string().min(1).optional().describe('`LongHisDoc_IMG/` of the release: `<doc_id>/page_<n>.jpg` (n one-based)'),
  onImageProblem: z.enum(['error', 'warn']).default('error').describe('`error`: a missing, truncated or unreadable page image, or a folder that does not match the OCR, stops the run; `warn`: counted in describe()'),
  label: labelSchema().default('longhisdoc').describe('Name recorded with each item (`benchmark` column)'),
  metadata: MetadataFieldsSchema.describe('Record fields of one\'s own to keep (as meta and groups); any other field outside the release\'s schema is refused'),
}).strict();
export type LongHisDocParams = z.infer<typeof LongHisDocParamsSchema>;

export const longHisDocSchema: ComponentSchema<LongHisDocParams> = {
  name: 'longhisdoc',
  description: 'LongHisDoc QA file ({doc_id: [records]}) with an optional OCR directory.',
  params: LongHisDocParamsSchema,
};
