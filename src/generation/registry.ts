import { Registry } from '../registry.js';
import { extractiveGenerator } from './extractive.js';
import { openaiGenerator } from './openai.js';
import { pageReaderGenerator } from './pageReader.js';
import type { Generator } from './types.js';

/** Every LLM behind the Generator interface, chosen by name in the config (`{ name, ...params }`). */
export const generators = new Registry<Generator, void>('generator');

generators.register(extractiveGenerator).register(openaiGenerator).register(pageReaderGenerator);
