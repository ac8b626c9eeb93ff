import { z } from 'zod';
import { ServiceUnavailableError } from '../../errors.js';
import { generators } from '../../generation/registry.js';
import type { Generator } from '../../generation/types.js';
import type { RegistryEntry } from '../../registry.js';
import { stripThink } from '../stripThink.js';
import type { AnswerExtractor } from '../types.js';
import { extractionMessages } from './prompts.js';
import { TYPED_EXTRACTIONS } from './rules.js';
import { llmExtractorSchema, LlmExtractorParams } from './llmSchema.js';

export { LlmExtractorParams } from './llmSchema.js';

/** Last non-empty line of a model's output, without wrapping quotes or code fences. */
function lastLine(text: string): string {
  const lines = stripThink(text)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('```'));
  return (lines.at(-1) ?? '').replace(/^["'“”]+|["'“”]+$/g, '').trim();
}

/** Brings an LLM's extraction into the exact format the scorer reads. */
function normaliseExtraction(text: string, answerType: string): string {
  const output = stripThink(text).trim();
  const typed = TYPED_EXTRACTIONS.get(answerType);
  if (typed) return typed(output);
  return answerType === 'None' && output.includes('无法回答') ? '无法回答' : lastLine(output);
}

/** An extractor that asks a generator, retrying `retries` times when the call itself fails. */
export function createLlmExtractor(generator: Generator, options: { retries?: number } = {}): AnswerExtractor {
  const retries = options.retries ?? 2;
  return {
    name: 'llm',
    generator,
    async extract(input) {
      let lastError: unknown;
      for (let attempt = 0; attempt <= retries; attempt++) {
        try {
          const result = await generator.generate(extractionMessages(input));
          // An extractor that says nothing has not extracted an empty answer: that would score 0.
          if (result.emptyAfterAttempts) throw new Error(`empty completion on all ${result.emptyAfterAttempts} attempts`);
          return normaliseExtraction(result.text, input.answerType);
        } catch (error) {
          // An endpoint that is down stops the run (resumable); it is not this answer's failure.
          if (error instanceof ServiceUnavailableError) throw error;
          lastError = error;
        }
      }
      throw new Error(`extractor ${generator.model} failed after ${retries + 1} attempts: ${(lastError as Error)?.message ?? String(lastError)}`);
    },
  };
}

export const llmExtractor: RegistryEntry<z.infer<typeof LlmExtractorParams>, AnswerExtractor, void> = {
  ...llmExtractorSchema,
  async create(params) {
    const generator = await generators.create(params.generator, undefined, 'extractor.generator');
    return createLlmExtractor(generator, { retries: params.retries });
  },
};
