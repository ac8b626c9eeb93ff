import type { RegistryEntry } from '../../registry.js';
import { resolveTemplate, TemplateOverrideSchema, type TemplateOverride } from '../templateOverrides.js';
import { TemplateStrategy } from '../templateStrategy.js';
import { closedBookTemplate } from '../templates/closedBook.js';
import { profTemplate } from '../templates/prof.js';
import type { PromptTemplate } from '../templates/promptTemplate.js';
import { roleTemplate } from '../templates/role.js';
import type { PromptStrategy } from '../types.js';

/** A strategy without retrieval: its built-in template, which the config may override, filled with the question. */
function noRetrievalStrategy(name: string, description: string, builtIn: PromptTemplate): RegistryEntry<TemplateOverride, PromptStrategy, void> {
  return {
    name,
    description,
    params: TemplateOverrideSchema.strict(),
    async create(params) {
      const template = await resolveTemplate(builtIn, params, name, ['question']);
      return new TemplateStrategy({ name, template, instructions: params.instructions });
    },
  };
}

export const closedBookStrategy = noRetrievalStrategy('closed-book', 'No retrieval: the question and the answer instructions only.', closedBookTemplate);

export const roleStrategy = noRetrievalStrategy('role', 'Historian role-play, no retrieval.', roleTemplate);

export const profStrategy = noRetrievalStrategy(
  'prof',
  'Professional prompting: rigorous academic answer, cited sources, era names with AD years; no retrieval.',
  profTemplate,
);
