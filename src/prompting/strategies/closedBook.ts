import type { RegistryEntry } from '../../registry.js';
import { resolveTemplate, TemplateOverrideSchema, type TemplateOverride } from '../templateOverrides.js';
import { TemplateStrategy } from '../templateStrategy.js';
import { closedBookTemplate } from '../templates/closedBook.js';
import type { PromptStrategy } from '../types.js';

export const closedBookStrategy: RegistryEntry<TemplateOverride, PromptStrategy, void> = {
  name: 'closed-book',
  description: 'No retrieval: the question and the answer instructions only.',
  params: TemplateOverrideSchema.strict(),
  async create(params) {
    const template = await resolveTemplate(closedBookTemplate, params, 'closed-book', ['question']);
    return new TemplateStrategy({ name: 'closed-book', template, instructions: params.instructions });
  },
};
