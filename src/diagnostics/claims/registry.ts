import { Registry } from '../../registry.js';
import { llmClaimChecker, llmClaimExtractor, openaiClaimChecker, openaiClaimExtractor } from './llm.js';
import { lexicalClaimChecker, sentenceClaimExtractor } from './standIns.js';
import type { ClaimChecker, ClaimExtractor } from './types.js';

/** Claim extractors, chosen by name in `diagnostics.extractor` (`{ name, ...params }`). */
export const claimExtractors = new Registry<ClaimExtractor, void>('claim extractor');
claimExtractors.register(sentenceClaimExtractor).register(llmClaimExtractor).register(openaiClaimExtractor);

/** Claim checkers, chosen by name in `diagnostics.checker`. */
export const claimCheckers = new Registry<ClaimChecker, void>('claim checker');
claimCheckers.register(lexicalClaimChecker).register(llmClaimChecker).register(openaiClaimChecker);
