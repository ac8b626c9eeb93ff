import { Registry } from '../registry.js';
import { extractiveSchema } from './extractiveSchema.js';
import { logprobWriterSchema } from './logprobWriterSchema.js';
import { openaiSchema } from './openaiSchema.js';
import { pageReaderSchema } from './pageReaderSchema.js';
import { searchReasonerSchema } from './searchReasonerSchema.js';
import type { Generator } from './types.js';

/** Every LLM behind the Generator interface, chosen by name in the config (`{ name, ...params }`). */
export const generators = new Registry<Generator, void>('generator');

generators
  .registerLazy(extractiveSchema, async () => (await import('./extractive.js')).createExtractive)
  .registerLazy(openaiSchema, async () => (await import('./openai.js')).createOpenAI)
  .registerLazy(pageReaderSchema, async () => (await import('./pageReader.js')).createPageReader)
  // Offline stand-ins for reasoning with search and for FLARE (issue 34).
  .registerLazy(searchReasonerSchema, async () => (await import('./searchReasoner.js')).createSearchReasoner)
  .registerLazy(logprobWriterSchema, async () => (await import('./logprobWriter.js')).createLogprobWriter);
