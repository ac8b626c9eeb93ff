import { z } from 'zod';
import { OpenAIParamsFields } from '../../generation/openaiSchema.js';
import type { ComponentSchema } from '../../registry.js';

// The claim extractors' and checkers' names, descriptions and params, apart from their implementations
// (llm.ts loads the OpenAI and LangChain clients): the registries import these, the code on create.

export const DEFAULT_CLAIMS_PER_CALL = 5;

const Retries = z.number().int().min(0).default(2);
const ClaimsPerCall = z.number().int().min(1).max(20).default(DEFAULT_CLAIMS_PER_CALL);
/** A generator spec (`{ name, ...params }`) resolved through the generators registry; use temperature 0. */
const GeneratorSpec = z.looseObject({ name: z.string() });

const LlmClaimExtractorParams = z.strictObject({ generator: GeneratorSpec, retries: Retries });
const LlmClaimCheckerParams = z.strictObject({ generator: GeneratorSpec, retries: Retries, claimsPerCall: ClaimsPerCall });
export type LlmClaimParams = z.infer<typeof LlmClaimExtractorParams> & { claimsPerCall?: number };

// OpenAIParamsFields' own `retries` counts HTTP retries; here `retries` counts unreadable replies
// (as in the 'llm' entries), so the HTTP one is `httpRetries`.
const OpenAIClaimExtractorParams = OpenAIParamsFields.omit({ retries: true, batch: true, batchFallback: true }).extend({
  httpRetries: OpenAIParamsFields.shape.retries,
  retries: Retries,
});
const OpenAIClaimCheckerParams = OpenAIClaimExtractorParams.extend({ claimsPerCall: ClaimsPerCall });
export type OpenAIClaimParams = z.infer<typeof OpenAIClaimExtractorParams> & { claimsPerCall?: number };

const LexicalCheckerParams = z.strictObject({
  threshold: z.number().gt(0).max(1).default(0.5),
  claimsPerCall: z.number().int().min(1).max(20).default(5),
});

export const sentencesExtractorSchema: ComponentSchema<Record<string, never>> = { name: 'sentences', description: 'Offline stand-in: claims are the sentences of the text.', params: z.strictObject({}) };
export type LexicalCheckerParams = z.infer<typeof LexicalCheckerParams>;
export const lexicalCheckerSchema: ComponentSchema<LexicalCheckerParams> = { name: 'lexical', description: 'Offline stand-in: a claim is entailed by a text when enough of its content appears in it; never contradiction.', params: LexicalCheckerParams };

export const llmExtractorSchema: ComponentSchema<z.infer<typeof LlmClaimExtractorParams>> = { name: 'llm', description: 'LLM claim extraction (Chinese prompt: self-contained claims, one numbered line each); unreadable replies retried then reported as failures.', params: LlmClaimExtractorParams };
export const openaiExtractorSchema: ComponentSchema<z.infer<typeof OpenAIClaimExtractorParams>> = { name: 'openai', description: 'The LLM claim extractor on an OpenAI-compatible endpoint given inline (OpenAI generator params; httpRetries for HTTP, retries for unreadable replies).', params: OpenAIClaimExtractorParams };
export const llmCheckerSchema: ComponentSchema<z.infer<typeof LlmClaimCheckerParams>> = { name: 'llm', description: 'LLM claim checking (Chinese prompt, 蕴含/中立/矛盾 from the given text only, up to claimsPerCall claims a call); a missing label is retried then reported, never read as neutral.', params: LlmClaimCheckerParams };
export const openaiCheckerSchema: ComponentSchema<z.infer<typeof OpenAIClaimCheckerParams>> = { name: 'openai', description: 'The LLM claim checker on an OpenAI-compatible endpoint given inline (OpenAI generator params; httpRetries for HTTP, retries for unreadable replies, claimsPerCall).', params: OpenAIClaimCheckerParams };
