import type { ChatMessage } from '../prompting/types.js';

export interface TokenUsage {
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
}

export interface GenerationResult {
  /** Answer text with reasoning blocks (`<think>…</think>`) removed: what gets scored. */
  text: string;
  /** Raw model output, reasoning included, kept in the record. */
  raw: string;
  reasoning?: string;
  usage?: TokenUsage;
  /** True when served from the response cache. */
  cached?: boolean;
  /**
   * Set when the endpoint returned empty completions on every attempt (this many): the answer
   * is empty, and runs count it as such.
   */
  emptyAfterAttempts?: number;
}

export interface GenerateOptions {
  signal?: AbortSignal;
  /**
   * Response cache use: `use` (default) answers from the cache when it can; `refresh` skips the
   * lookup and stores the new answer (a judge retrying an unusable output wants a fresh call).
   */
  cache?: 'use' | 'refresh';
}

/** Any LLM (OpenAI-compatible endpoint, offline extractive baseline ...) behind one interface. */
export interface Generator {
  readonly name: string;
  /** Model name as recorded in run manifests and reports. */
  readonly model: string;
  generate(messages: ChatMessage[], options?: GenerateOptions): Promise<GenerationResult>;
  describe(): Record<string, unknown>;
}
