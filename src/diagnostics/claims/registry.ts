import { Registry } from '../../registry.js';
import { lexicalCheckerSchema, llmCheckerSchema, llmExtractorSchema, openaiCheckerSchema, openaiExtractorSchema, sentencesExtractorSchema } from './schemas.js';
import type { ClaimChecker, ClaimExtractor } from './types.js';

const llm = () => import('./llm.js');
const standIns = () => import('./standIns.js');

/** Claim extractors, chosen by name in `diagnostics.extractor` (`{ name, ...params }`). */
export const claimExtractors = new Registry<ClaimExtractor, void>('claim extractor')
  .registerLazy(sentencesExtractorSchema, async () => (await standIns()).sentenceClaimExtractor.create)
  .registerLazy(llmExtractorSchema, async () => (await llm()).llmClaimExtractor.create)
  .registerLazy(openaiExtractorSchema, async () => (await llm()).openaiClaimExtractor.create);

/** Claim checkers, chosen by name in `diagnostics.checker`. */
export const claimCheckers = new Registry<ClaimChecker, void>('claim checker')
  .registerLazy(lexicalCheckerSchema, async () => (await standIns()).lexicalClaimChecker.create)
  .registerLazy(llmCheckerSchema, async () => (await llm()).llmClaimChecker.create)
  .registerLazy(openaiCheckerSchema, async () => (await llm()).openaiClaimChecker.create);
