import { z } from 'zod';
import type { ComponentSchema } from '../registry.js';
import { ImageSizeFields } from '../corpus/pageImageSize.js';
import { ExtractiveParamsSchema } from './extractiveSchema.js';
import { ImageTokensSchema } from './imageTokens.js';

export const PageReaderParamsSchema = ExtractiveParamsSchema.extend({
  ocrDir: z.string().min(1).describe('The LongHisDoc `OCR_res` folder: `<ocrDir>/<doc_id>.json` holds the text of every page of a volume'),
  images: z.strictObject({ ...ImageSizeFields, tokens: ImageTokensSchema }).prefault({ maxPixels: 1_003_520, tokens: { formula: 'qwen-vl', maxPixels: 1_003_520 } }).describe('The model it stands in for, for counting: the size pages would be sent at and the token formula (a Qwen2.5-VL at 1,003,520 pixels by default)'),
});
export type PageReaderParams = z.infer<typeof PageReaderParamsSchema>;
export const PAGE_READER_NOTE = 'offline stand-in for a vision-language model: reads the OCR text of the page images it was shown (it sees no pixels)';

export const pageReaderSchema: ComponentSchema<PageReaderParams> = {
  name: 'page-reader',
  description: 'Offline stand-in for a vision-language model: answers as `extractive` from the OCR text of the page images it was shown.',
  params: PageReaderParamsSchema,
};
