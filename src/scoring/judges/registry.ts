import { Registry } from '../../registry.js';
import type { Judge } from '../types.js';
import { lexicalJudge } from './lexical.js';
import { llmJudge } from './llm.js';
import { overcreditJudge } from './overcredit.js';

/** Rubric judges, chosen by name in the config (`{ name, ...params }`). */
export const judges = new Registry<Judge, void>('judge');

judges.register(lexicalJudge).register(llmJudge).register(overcreditJudge);
