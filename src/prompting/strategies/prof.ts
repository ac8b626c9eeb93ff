import type { RegistryEntry } from '../../registry.js';
import { resolveTemplate, TemplateOverrideSchema, type TemplateOverride } from '../templateOverrides.js';
import { TemplateStrategy } from '../templateStrategy.js';
import { profTemplate } from '../templates/prof.js';
import type { PromptStrategy } from '../types.js';

export const profStrategy: RegistryEntry<TemplateOverride, PromptStrategy, void> = {
  name: 'prof',
  description: 'Professional prompting: rigorous academic answer, cited sources, era names with AD years; no retrieval.',
  params: TemplateOverrideSchema.strict(),
  async create(params) {
    const template = await resolveTemplate(profTemplate, params, 'prof', ['question']);
    return new TemplateStrategy({ name: 'prof', template, instructions: params.instructions });
  },
};
