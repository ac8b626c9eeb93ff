import type { BaseMessage } from '@langchain/core/messages';
import type { ChatMessage, PageImageRef } from '../prompting/types.js';

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
  /** True when served from the response cache (free). */
  cached?: boolean;
  /** True when a batch of this run answered it (batch API mode): a paid call at the batch price. */
  batched?: boolean;
  /**
   * Set when the endpoint returned empty completions on every attempt (this many): the answer
   * is empty, and runs count it as such.
   */
  emptyAfterAttempts?: number;
  /** Tool calls the model asked for (a tool-calling turn, `chatTurn`). */
  toolCalls?: ToolCallRequest[];
  /** What the call met at the endpoint's rate limit (absent when nothing): 429s received, milliseconds waited for a slot. */
  rateLimit?: { rateLimited: number; waitedMs: number };
}

/** One tool call of a model's turn, as OpenAI's protocol carries it. */
export interface ToolCallRequest {
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

/** A tool offered to the model, in OpenAI's function-calling format. */
export interface ToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface ChatTurnOptions extends GenerateOptions {
  tools: ToolDefinition[];
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
  /**
   * One turn of a tool-calling conversation (LangChain messages, tools offered); generators whose
   * model cannot call tools (the offline stand-in) have none.
   */
  chatTurn?(messages: BaseMessage[], options: ChatTurnOptions): Promise<GenerationResult>;
  /** True when the response cache already holds the answer to these messages (a dry run counts them as free). */
  isCached?(messages: ChatMessage[]): boolean;
  /**
   * Tokens the model counts for a page image as this generator prepares it (its `images.tokens`
   * formula on the prepared size). Absent for a text-only generator: a prompt with image parts is
   * then refused before any call, naming the model.
   */
  imageTokens?(image: PageImageRef): number;
  describe(): Record<string, unknown>;
}
