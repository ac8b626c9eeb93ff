import { z } from 'zod';
import { ContextOrderingSchema } from '../contextOrder.js';
import { TemplateOverrideSchema } from '../templateOverrides.js';
import { PageInputSchema } from '../imageContext.js';
import { tokenCounters } from '../../text/tokenCounter.js';
import type { ComponentSchema } from '../../registry.js';

export const RagParamsSchema = TemplateOverrideSchema.extend({
  // Over budget, the lowest-ranked chunks are dropped.
  contextBudget: z.number().int().positive().nullable().default(60_000).describe('Tokens the retrieved context may take (null: no limit)'),
  tokenCounter: z.enum(Object.keys(tokenCounters) as [keyof typeof tokenCounters]).default('cjk-estimate').describe('How `contextBudget` is counted: `cjk-estimate` (a CJK character is a token, other text 4 characters a token) or `chars` (characters)'),
  ordering: ContextOrderingSchema.default('rank').describe('Where passages go in the prompt: `rank` (best first), `reversed` (best last, next to the question), `gold-middle` (gold evidence in the middle: lost in the middle)'),
  showPages: z.boolean().default(true).describe('Show page numbers (`（第12页）`) for chunks that carry them (LongHisDoc pages)'),
  persona: z.enum(['plain', 'role', 'prof', 'cot']).default('plain').describe('System message style: plain RAG, or combined with historian role, professional or chain-of-thought prompting'),
  input: PageInputSchema.default('text').describe('What each retrieved passage shows: its `text`, its page `image`(s) (LongHisDoc pages, for a vision-language model), or `image+text` (each image followed by the page\'s OCR text)'),
  imageDir: z.string().min(1).optional().describe('`LongHisDoc_IMG/` folder for image input; defaults to the one given to the longhisdoc benchmark'),
  maxImages: z.number().int().positive().nullable().default(null).describe('Most page images in one prompt (the model\'s limit); the lowest-ranked passages are dropped first'),
}).strict();
export type RagParams = z.infer<typeof RagParamsSchema>;

/** `page-rag`: `rag` over a page corpus, shown as page images by default, at 1–10 pages unless the config says otherwise. */
export const PageRagParamsSchema = RagParamsSchema.extend({ input: PageInputSchema.default('image').describe('What each retrieved page shows: its `image` (default), its `text` (OCR), or `image+text`') }).strict();

export const ragSchema: ComponentSchema<RagParams> = {
  name: 'rag',
  description: 'RAG@k: retrieved chunks with source titles (and pages) before the question, within a token budget.',
  params: RagParamsSchema,
};

export const pageRagSchema: ComponentSchema<RagParams> = {
  name: 'page-rag',
  description: 'RAG over pages: k retrieved pages (1, 3, 5, 10 by default) shown as page images, OCR text, or both.',
  params: PageRagParamsSchema,
};
