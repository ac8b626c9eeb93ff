import { z } from 'zod';
import type { RegistryEntry } from '../../registry.js';
import { ContextOrderingSchema } from '../contextOrder.js';
import { resolveTemplate, TemplateOverrideSchema } from '../templateOverrides.js';
import { TemplateStrategy } from '../templateStrategy.js';
import { COT_INSTRUCTION, cotTemplate, FINAL_ANSWER_MARKER } from '../templates/cot.js';
import { profTemplate } from '../templates/prof.js';
import { ragTemplate } from '../templates/rag.js';
import { roleTemplate } from '../templates/role.js';
import { tokenCounters } from '../tokenCounter.js';
import type { PromptStrategy } from '../types.js';

export const RagParamsSchema = TemplateOverrideSchema.extend({
  /** Tokens the retrieved context may take (null: no limit). Over budget, the lowest-ranked chunks are dropped. */
  contextBudget: z.number().int().positive().nullable().default(60_000),
  tokenCounter: z.enum(Object.keys(tokenCounters) as [keyof typeof tokenCounters]).default('cjk-estimate'),
  ordering: ContextOrderingSchema.default('rank'),
  /** Show page numbers (`（第12页）`) for chunks that carry them (LongHisDoc pages). */
  showPages: z.boolean().default(true),
  /** System message style: plain RAG, or combined with historian role, professional or chain-of-thought prompting. */
  persona: z.enum(['plain', 'role', 'prof', 'cot']).default('plain'),
}).strict();
export type RagParams = z.infer<typeof RagParamsSchema>;

const SYSTEMS = { role: roleTemplate.system, prof: profTemplate.system, cot: cotTemplate.system } as const;

export const ragStrategy: RegistryEntry<RagParams, PromptStrategy, void> = {
  name: 'rag',
  description: 'RAG@k: retrieved chunks with source titles (and pages) before the question, within a token budget.',
  params: RagParamsSchema,
  async create(params) {
    const builtIn = params.persona === 'plain' ? ragTemplate : { ...ragTemplate, system: SYSTEMS[params.persona] };
    const template = await resolveTemplate(builtIn, params, 'rag', ['question', 'context']);
    const cot = params.persona === 'cot';
    return new TemplateStrategy({
      name: 'rag',
      template,
      instructions: params.instructions,
      ...(cot ? { instructionPrefix: COT_INSTRUCTION, finalAnswerMarker: FINAL_ANSWER_MARKER } : {}),
      retrieval: {
        budget: params.contextBudget,
        counter: tokenCounters[params.tokenCounter],
        ordering: params.ordering,
        showPages: params.showPages,
      },
    });
  },
};
