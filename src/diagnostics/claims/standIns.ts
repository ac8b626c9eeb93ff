import { splitSentences } from '../../chunking/sentences.js';
import { estimateTokens } from '../../text/tokenCounter.js';
import type { RegistryEntry } from '../../registry.js';
import { contentKeys, itemContent } from '../../scoring/judges/lexical.js';
import { stripThink } from '../../scoring/stripThink.js';
import type { ClaimLabel } from '../../runFiles/diagnosis.js';
import type { CallUsage, ClaimChecker, ClaimExtractor } from './types.js';
import { lexicalCheckerSchema, sentencesExtractorSchema, type LexicalCheckerParams } from './schemas.js';

/** Sentence-final punctuation and list numbering: not part of a claim's content. */
const TRAILING = /[。！？；…!?;，,、\s]+$/u;
const NUMBERING = /^\s*(?:\d+[、.．)）]|[（(]\d+[)）]|[一二三四五六七八九十]+、)\s*/u;

/** The project's Chinese sentence splitter as a claim list: one claim per sentence, duplicates dropped. */
export function sentenceClaims(text: string): string[] {
  const claims: string[] = [];
  for (const sentence of splitSentences(stripThink(text))) {
    const claim = sentence.text.replace(NUMBERING, '').replace(TRAILING, '').trim();
    // A claim needs some content: a lone character or punctuation says nothing checkable.
    if (contentKeys(claim).size === 0 || claims.includes(claim)) continue;
    claims.push(claim);
  }
  return claims;
}

/** Estimated tokens of what an LLM would have read and written for this call (the stand-in's cost figure). */
function estimatedUsage(input: string, output: string): CallUsage {
  return { calls: 1, promptTokens: estimateTokens(input), completionTokens: estimateTokens(output), estimated: true };
}

/** Offline stand-in extractor: claims are the text's sentences (no model, no decontextualisation). */
export function createSentenceClaimExtractor(): ClaimExtractor {
  return {
    name: 'sentences',
    standIn: true,
    fingerprint: 'sentences@1',
    describe: () => ({ name: 'sentences', standIn: 'offline stand-in: claims are the sentences of the text (the project’s Chinese sentence splitter)' }),
    estimate: ({ text }) => {
      const usage = estimatedUsage(text, sentenceClaims(text).join('\n'));
      return { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens };
    },
    async extract({ text }) {
      const claims = sentenceClaims(text);
      return { ok: true, claims, usage: estimatedUsage(text, claims.join('\n')) };
    },
  };
}

/** Share of a claim's content keys (CJK bigrams, ASCII words; instruction words dropped) found in a text. */
export function lexicalCoverage(claim: string, textKeys: Set<string>): number {
  const keys = contentKeys(itemContent(claim));
  if (keys.size === 0) return 0;
  let found = 0;
  for (const key of keys) if (textKeys.has(key)) found++;
  return found / keys.size;
}

/**
 * Offline stand-in checker: entailed when `threshold` of a claim's content is in the text, else neutral;
 * never contradiction (that needs a model), so its hallucination counts unsupported claims.
 */
export function createLexicalClaimChecker(options: { threshold?: number; claimsPerCall?: number } = {}): ClaimChecker {
  const threshold = options.threshold ?? 0.5;
  const claimsPerCall = options.claimsPerCall ?? 5;
  return {
    name: 'lexical',
    standIn: true,
    fingerprint: `lexical@${threshold}`,
    claimsPerCall,
    describe: () => ({ name: 'lexical', threshold, claimsPerCall, standIn: 'offline stand-in: a claim is entailed when enough of its content appears in the text; never contradiction' }),
    estimate: ({ claims, text }) => ({ promptTokens: estimateTokens(`${text}\n${claims.join('\n')}`), completionTokens: 4 * claims.length }),
    async check({ claims, text }) {
      if (claims.length > claimsPerCall) throw new Error(`lexical checker: ${claims.length} claims in one call (at most ${claimsPerCall})`);
      const keys = contentKeys(text);
      const labels: ClaimLabel[] = claims.map((claim) => (lexicalCoverage(claim, keys) >= threshold ? 'entailment' : 'neutral'));
      return { ok: true, labels, usage: { calls: 1, promptTokens: estimateTokens(`${text}\n${claims.join('\n')}`), completionTokens: 4 * claims.length, estimated: true } };
    },
  };
}

export const sentenceClaimExtractor: RegistryEntry<Record<string, never>, ClaimExtractor, void> = { ...sentencesExtractorSchema, create: () => createSentenceClaimExtractor() };
export const lexicalClaimChecker: RegistryEntry<LexicalCheckerParams, ClaimChecker, void> = { ...lexicalCheckerSchema, create: (params) => createLexicalClaimChecker(params) };
