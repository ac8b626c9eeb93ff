import { z } from 'zod';
import { TemplateOverrideSchema } from '../templateOverrides.js';
import { PageInputSchema } from '../imageContext.js';
import { tokenCounters } from '../../text/tokenCounter.js';
import type { ComponentSchema } from '../../registry.js';

export const LongHisDocFullParamsSchema = TemplateOverrideSchema.extend({
  ocrDir: z.string().min(1).optional().describe('LongHisDoc `OCR_res/` folder; defaults to the one given to the longhisdoc benchmark'),
  pages: z.enum(['input', 'all']).default('input').describe('`input`: the record\'s `input_pages` (the benchmark\'s setting); `all`: the whole book'),
  contextBudget: z.number().int().positive().nullable().default(60_000).describe('Tokens of OCR text (null: no limit); later pages are cut first'),
  tokenCounter: z.enum(Object.keys(tokenCounters) as [keyof typeof tokenCounters]).default('cjk-estimate').describe('How `contextBudget` is counted: `cjk-estimate` (a CJK character is a token, other text 4 characters a token) or `chars` (characters)'),
  input: PageInputSchema.default('text').describe('What each page shows: `text` (its OCR: the benchmark\'s text setting), `image` (its scan: the image-input setting, for a vision-language model), `image+text` (the scan followed by its OCR)'),
  imageDir: z.string().min(1).optional().describe('`LongHisDoc_IMG/` folder; defaults to the one given to the longhisdoc benchmark'),
  maxImages: z.number().int().positive().nullable().default(null).describe('Most page images in one prompt (the model\'s limit, e.g. vLLM\'s --limit-mm-per-prompt); later pages are cut first'),
}).strict();
export type LongHisDocFullParams = z.infer<typeof LongHisDocFullParamsSchema>;

export const longHisDocFullSchema: ComponentSchema<LongHisDocFullParams> = {
  name: 'longhisdoc-full',
  description: "LongHisDoc's settings: the document's pages (input pages or the whole book) as OCR text, page images, or both, cut to the budget and image limit (needs prepare()).",
  params: LongHisDocFullParamsSchema,
};
