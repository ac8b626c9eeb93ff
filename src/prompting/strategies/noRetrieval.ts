import { resolveTemplate, type TemplateOverride } from '../templateOverrides.js';
import { TemplateStrategy } from '../templateStrategy.js';
import { closedBookTemplate } from '../templates/closedBook.js';
import { profTemplate } from '../templates/prof.js';
import type { PromptTemplate } from '../templates/promptTemplate.js';
import { roleTemplate } from '../templates/role.js';
import type { PromptStrategy } from '../types.js';
import { closedBookSchema, profSchema, roleSchema } from './noRetrievalSchema.js';

/** A strategy without retrieval: its built-in template, which the config may override, filled with the question. */
function noRetrievalStrategy({ name }: { name: string }, builtIn: PromptTemplate) {
  return async (params: TemplateOverride): Promise<PromptStrategy> => {
    const template = await resolveTemplate(builtIn, params, name, ['question']);
    return new TemplateStrategy({ name, template, instructions: params.instructions });
  };
}

export const createClosedBookStrategy = noRetrievalStrategy(closedBookSchema, closedBookTemplate);

export const createRoleStrategy = noRetrievalStrategy(roleSchema, roleTemplate);

export const createProfStrategy = noRetrievalStrategy(profSchema, profTemplate);
