import type { PageImageRef } from '../runFiles/pageImage.js';
import type { BenchmarkItem } from '../benchmarks/types.js';
import type { RetrievedChunk } from '../retrieval/types.js';

export type { PageImageRef } from '../runFiles/pageImage.js';

/** One part of a multimodal message: text, or a page image (LangChain's and OpenAI's content parts, by reference). */
export type ContentPart = { type: 'text'; text: string } | { type: 'image'; image: PageImageRef };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  /** Text, or parts in order (a page image followed by its OCR text …) when the prompt shows images. */
  content: string | ContentPart[];
}

/** A message that is text only (every method step's prompt, judges, extractors): a ChatMessage too. */
export interface TextChatMessage extends ChatMessage {
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
  /**
   * Depths this strategy runs at when the config's `retrieval.k` gives none for it (page strategies:
   * 1, 3, 5, 10 pages); a strategy entry's own `k:` overrides both.
   */
  readonly defaultDepths?: readonly number[];
  build(input: PromptInput): BuiltPrompt;
  /** Loads what build needs from disk (longhisdoc-full reads OCR files): awaited once with the run's items before build. */
  prepare?(items: BenchmarkItem[]): Promise<void>;
  /** The part of a response that is scored (chain-of-thought: after the final-answer marker). */
  finalAnswer?(text: string): string;
}
