import { z } from 'zod';
import type { ComponentSchema } from '../../registry.js';

const FieldName = z.string().min(1);

export const JsonCollectionParamsSchema = z.strictObject({
  input: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).describe('A .json file (an array of records), a .jsonl file, a directory of them, or a list'),
  /** Record fields; `text` may be an array of strings (joined by newlines). */
  fields: z
    .strictObject({
      id: FieldName.default('id'),
      title: FieldName.default('title'),
      text: FieldName.default('text'),
      meta: z.array(FieldName).default([]).describe('Extra fields copied into each chunk\'s meta (e.g. author, dynasty)'),
    })
    .default({ id: 'id', title: 'title', text: 'text', meta: [] })
    .describe('Record fields holding the id, title and text (`text` may be an array of strings, joined by newlines), and `meta`'),
  recordsPath: z.string().min(1).optional().describe('Where a .json file keeps its array, when not at the top (dot path, e.g. `data.items`)'),
  simplify: z.boolean().default(false).describe('Convert title and text to simplified Chinese (chinese-poetry is traditional)'),
});
export type JsonCollectionParams = z.output<typeof JsonCollectionParamsSchema>;

export const jsonCollectionSchema: ComponentSchema<JsonCollectionParams> = {
  name: 'json',
  description: 'JSON / JSONL collection: one document per record, with a field mapping (default id, title, text)',
  params: JsonCollectionParamsSchema,
};
