import { resolveTemplate } from '../templateOverrides.js';
import { TemplateStrategy } from '../templateStrategy.js';
import { cotTemplate } from '../templates/cot.js';
import type { PromptStrategy } from '../types.js';
import type { CotParams } from './cotSchema.js';

export async function createCotStrategy(params: CotParams): Promise<PromptStrategy> {
  const template = await resolveTemplate(cotTemplate, params, 'cot', ['question']);
  return new TemplateStrategy({ name: 'cot', template, instructions: params.instructions, finalAnswerMarker: params.marker });
}
