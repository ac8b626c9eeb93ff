import type { BenchmarkItem } from '../benchmarks/types.js';
import type { RetrievedChunk } from '../retrieval/types.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What a strategy turns into messages. `context` is null in closed-book conditions. */
export interface PromptInput {
  item: BenchmarkItem;
  context: RetrievedChunk[] | null;
}

export interface BuiltPrompt {
  messages: ChatMessage[];
  /** Chunk ids actually placed in the prompt, in prompt order (after budget truncation). */
  contextIds: string[];
  /** How many retrieved chunks the context budget dropped. */
  truncated: number;
  /** Estimated tokens of the context placed in the prompt (by the strategy's token counter). */
  contextTokens?: number;
  /** True when the best chunk alone exceeded the budget and was cut to fit. */
  clipped?: boolean;
}

export interface PromptStrategy {
  readonly name: string;
  /** True when the strategy needs retrieved context. */
  readonly usesRetrieval: boolean;
  build(input: PromptInput): BuiltPrompt;
  /** See PromptStrategyHooks: await once with the run's items before build (longhisdoc-full). */
  prepare?(items: BenchmarkItem[]): Promise<void>;
  /** The part of a response that is scored (chain-of-thought: after the final-answer marker). */
  finalAnswer?(text: string): string;
}

/**
 * Optional hooks a strategy may have (additive to PromptStrategy): `prepare` loads what `build`
 * needs from disk (the `longhisdoc-full` strategy reads OCR files) and must be awaited once with
 * the run's items before `build`; `finalAnswer` turns a response into the part that is scored
 * (chain-of-thought: the text after the final-answer marker).
 */
export interface PromptStrategyHooks {
  prepare?(items: BenchmarkItem[]): Promise<void>;
  finalAnswer?(text: string): string;
}
