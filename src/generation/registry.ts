import { Registry } from '../registry.js';
import { extractiveGenerator } from './extractive.js';
import { openaiGenerator } from './openai.js';
import { logprobWriterGenerator } from './logprobWriter.js';
import { pageReaderGenerator } from './pageReader.js';
import { searchReasonerGenerator } from './searchReasoner.js';
import type { Generator } from './types.js';

/** Every LLM behind the Generator interface, chosen by name in the config (`{ name, ...params }`). */
export const generators = new Registry<Generator, void>('generator');

generators
  .register(extractiveGenerator)
  .register(openaiGenerator)
  .register(pageReaderGenerator)
  // Offline stand-ins for reasoning with search and for FLARE (issue 34).
  .register(searchReasonerGenerator)
  .register(logprobWriterGenerator);
