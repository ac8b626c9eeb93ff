import { z } from 'zod';
import type { RegistryEntry } from '../../registry.js';
import { FullDocumentStrategy } from '../fullDocumentStrategy.js';
import { resolveTemplate, TemplateOverrideSchema } from '../templateOverrides.js';
import { longHisDocFullTemplate } from '../templates/longhisdocFull.js';
import { tokenCounters } from '../tokenCounter.js';
import type { PromptStrategy } from '../types.js';

export const LongHisDocFullParamsSchema = TemplateOverrideSchema.extend({
  /** LongHisDoc `OCR_res/` folder; defaults to the one given to the longhisdoc benchmark. */
  ocrDir: z.string().min(1).optional(),
  /** `input`: the record's `input_pages` (the benchmark's setting); `all`: the whole book. */
  pages: z.enum(['input', 'all']).default('input'),
  /** Tokens of OCR text (null: no limit); later pages are cut first. */
  contextBudget: z.number().int().positive().nullable().default(60_000),
  tokenCounter: z.enum(Object.keys(tokenCounters) as [keyof typeof tokenCounters]).default('cjk-estimate'),
}).strict();
export type LongHisDocFullParams = z.infer<typeof LongHisDocFullParamsSchema>;

export const longHisDocFullStrategy: RegistryEntry<LongHisDocFullParams, PromptStrategy, void> = {
  name: 'longhisdoc-full',
  description: "LongHisDoc text setting: the document's OCR pages as context, cut to a budget (needs prepare()).",
  params: LongHisDocFullParamsSchema,
  async create(params) {
    const template = await resolveTemplate(longHisDocFullTemplate, params, 'longhisdoc-full', ['question', 'context']);
    return new FullDocumentStrategy({
      name: 'longhisdoc-full',
      template,
      instructions: params.instructions,
      ocrDir: params.ocrDir,
      pages: params.pages,
      budget: params.contextBudget,
      counter: tokenCounters[params.tokenCounter],
    });
  },
};
