import type { ClaimLabel } from '../../runFiles/diagnosis.js';

/** Tokens one call (or several, retries included) used; `estimated` where the endpoint reported none. */
export interface CallUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  estimated: boolean;
}

export interface ClaimCallOptions {
  signal?: AbortSignal;
}

/** What an extraction gave: the claims, or why there are none (never an empty list in place of a failure). */
export type ExtractionOutcome = ({ ok: true; claims: string[] } | { ok: false; error: string }) & { usage: CallUsage };

/** What a check gave: one label per claim, in order, or why it could not be made. */
export type CheckOutcome = ({ ok: true; labels: ClaimLabel[] } | { ok: false; error: string }) & { usage: CallUsage };

/** A claim extractor or checker as diagnostics record it: `standIn` says what an offline stand-in does. */
export type ClaimsComponentDescription = { name: string; standIn?: string; [key: string]: unknown };

/** Turns a text into self-contained claims; a failure after retries is `ok: false`, an endpoint down throws. */
export interface ClaimExtractor {
  readonly name: string;
  /** True for an offline stand-in (declared as such in the output). */
  readonly standIn: boolean;
  /** Identifies what the extractor would answer (model, prompt version, params): part of every cache key. */
  readonly fingerprint: string;
  describe(): ClaimsComponentDescription;
  /** Tokens one extraction of this input is expected to take (its prompt, a completion the size of the text): the needed-cost figure, the same whatever the cache holds. */
  estimate(input: { question: string; text: string; role: 'response' | 'reference' }): { promptTokens: number; completionTokens: number };
  extract(input: { question: string; text: string; role: 'response' | 'reference' }, options?: ClaimCallOptions): Promise<ExtractionOutcome>;
}

/** Labels up to `claimsPerCall` claims against one text, parsed strictly: never a guessed neutral. */
export interface ClaimChecker {
  readonly name: string;
  readonly standIn: boolean;
  readonly fingerprint: string;
  /** Most claims one call labels (RAGChecker: 5). */
  readonly claimsPerCall: number;
  describe(): ClaimsComponentDescription;
  /** Tokens one check of this batch is expected to take (its prompt, one label line per claim). */
  estimate(input: { claims: string[]; text: string; question: string }): { promptTokens: number; completionTokens: number };
  check(input: { claims: string[]; text: string; question: string }, options?: ClaimCallOptions): Promise<CheckOutcome>;
}
