import { Registry } from '../../registry.js';
import type { Judge } from '../types.js';
import { lexicalSchema } from './lexicalSchema.js';
import { llmJudgeSchema } from './llmSchema.js';
import { overcreditSchema } from './overcreditSchema.js';

/** Rubric judges, chosen by name in the config (`{ name, ...params }`). */
export const judges = new Registry<Judge, void>('judge')
  .registerLazy(lexicalSchema, async () => (await import('./lexical.js')).lexicalJudge.create)
  .registerLazy(llmJudgeSchema, async () => (await import('./llm.js')).llmJudge.create)
  .registerLazy(overcreditSchema, async () => (await import('./overcredit.js')).overcreditJudge.create);
