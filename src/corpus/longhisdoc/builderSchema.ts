import { z } from 'zod';
import type { ComponentSchema } from '../../registry.js';

export const LonghisdocOcrParamsSchema = z.strictObject({
  input: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).describe('The `OCR_res` directory (one `<doc_id>.json` per document), or OCR files'),
  qaFile: z.string().min(1).optional().describe('The QA file (`LongHisDoc.json`), for book name, genre and dynasties in the metadata'),
  docIds: z.array(z.string().min(1)).optional().describe('Only these documents'),
  windows: z.strictObject({ size: z.number().int().min(2), stride: z.number().int().positive().default(1) }).optional().describe('Also emit windows of `size` consecutive pages every `stride` pages (cross-page evidence)'),
  simplify: z.boolean().default(false).describe('Convert the OCR text to simplified Chinese'),
  imageDir: z.string().min(1).optional().describe('`LongHisDoc_IMG/` (relative to the build\'s base directory, like `input`): page documents then record their scan as `meta.image` ({path, width, height, bytes}, path inside this folder), windows as `meta.images`; the files are referenced,…'),
  onImageProblem: z.enum(['error', 'warn']).default('error').describe('`error`: any page without a usable image stops the build before a chunk is written; `warn`: such pages are counted (`pagesWithoutImage`)'),
});
export type LonghisdocOcrParams = z.output<typeof LonghisdocOcrParamsSchema>;

export const longhisdocOcrSchema: ComponentSchema<LonghisdocOcrParams> = {
  name: 'longhisdoc-ocr',
  description: 'LongHisDoc OCR_res/<doc_id>.json → page-level documents (+ optional windows of n pages)',
  params: LonghisdocOcrParamsSchema,
};
