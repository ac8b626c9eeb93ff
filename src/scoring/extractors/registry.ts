import { Registry } from '../../registry.js';
import type { AnswerExtractor } from '../types.js';
import { llmExtractor } from './llm.js';
import { rulesExtractor } from './rules.js';

/** LongHisDoc answer extractors, chosen by name in the config (`{ name, ...params }`). */
export const extractors = new Registry<AnswerExtractor, void>('extractor');

extractors.register(rulesExtractor).register(llmExtractor);
