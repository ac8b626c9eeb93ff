import type { RegistryEntry } from '../../registry.js';
import { resolveTemplate } from '../templateOverrides.js';
import { TemplateStrategy } from '../templateStrategy.js';
import { cotTemplate } from '../templates/cot.js';
import type { PromptStrategy } from '../types.js';
import { cotSchema, type CotParams } from './cotSchema.js';

export const cotStrategy: RegistryEntry<CotParams, PromptStrategy, void> = {
  ...cotSchema,
  async create(params) {
    const template = await resolveTemplate(cotTemplate, params, 'cot', ['question']);
    return new TemplateStrategy({ name: 'cot', template, instructions: params.instructions, finalAnswerMarker: params.marker });
  },
};
