import type { RegistryEntry } from '../../registry.js';
import { resolveTemplate, TemplateOverrideSchema, type TemplateOverride } from '../templateOverrides.js';
import { TemplateStrategy } from '../templateStrategy.js';
import { roleTemplate } from '../templates/role.js';
import type { PromptStrategy } from '../types.js';

export const roleStrategy: RegistryEntry<TemplateOverride, PromptStrategy, void> = {
  name: 'role',
  description: 'Historian role-play, no retrieval.',
  params: TemplateOverrideSchema.strict(),
  async create(params) {
    const template = await resolveTemplate(roleTemplate, params, 'role', ['question']);
    return new TemplateStrategy({ name: 'role', template, instructions: params.instructions });
  },
};
