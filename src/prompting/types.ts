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
}

export interface PromptStrategy {
  readonly name: string;
  /** True when the strategy needs retrieved context. */
  readonly usesRetrieval: boolean;
  build(input: PromptInput): BuiltPrompt;
}
