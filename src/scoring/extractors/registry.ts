import { Registry } from '../../registry.js';
import type { AnswerExtractor } from '../types.js';
import { llmExtractorSchema } from './llmSchema.js';
import { rulesExtractorSchema } from './rulesSchema.js';

/** LongHisDoc answer extractors, chosen by name in the config (`{ name, ...params }`). */
export const extractors = new Registry<AnswerExtractor, void>('extractor')
  .registerLazy(rulesExtractorSchema, async () => (await import('./rules.js')).rulesExtractor.create)
  .registerLazy(llmExtractorSchema, async () => (await import('./llm.js')).llmExtractor.create);
