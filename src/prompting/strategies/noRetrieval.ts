import type { ComponentSchema, RegistryEntry } from '../../registry.js';
import { resolveTemplate, type TemplateOverride } from '../templateOverrides.js';
import { TemplateStrategy } from '../templateStrategy.js';
import { closedBookTemplate } from '../templates/closedBook.js';
import { profTemplate } from '../templates/prof.js';
import type { PromptTemplate } from '../templates/promptTemplate.js';
import { roleTemplate } from '../templates/role.js';
import type { PromptStrategy } from '../types.js';
import { closedBookSchema, profSchema, roleSchema } from './noRetrievalSchema.js';

/** A strategy without retrieval: its built-in template, which the config may override, filled with the question. */
function noRetrievalStrategy(schema: ComponentSchema<TemplateOverride>, builtIn: PromptTemplate): RegistryEntry<TemplateOverride, PromptStrategy, void> {
  const { name } = schema;
  return {
    ...schema,
    async create(params) {
      const template = await resolveTemplate(builtIn, params, name, ['question']);
      return new TemplateStrategy({ name, template, instructions: params.instructions });
    },
  };
}

export const closedBookStrategy = noRetrievalStrategy(closedBookSchema, closedBookTemplate);

export const roleStrategy = noRetrievalStrategy(roleSchema, roleTemplate);

export const profStrategy = noRetrievalStrategy(profSchema, profTemplate);
