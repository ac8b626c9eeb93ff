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
  /** Each generated token with its log probability, in order (a call with `logprobs: true` to an endpoint that returns them). */
  logprobs?: TokenLogprob[];
  /** Why generation ended, as the endpoint said (`stop`: end of text or a stop sequence; `length`: `maxTokens` reached). */
  finishReason?: string;
}

/** One generated token and its natural-log probability (OpenAI's `logprobs.content[i]`, or the completions API's `tokens`/`token_logprobs`). */
export interface TokenLogprob {
  token: string;
  logprob: number;
}

/**
 * Per-call request settings a method step needs beyond the messages (reasoning with search, FLARE):
 * stop sequences (the endpoint ends the output before the first one and leaves it out), token log
 * probabilities, a smaller `maxTokens` than the model's. Part of the response-cache key.
 */
export interface CallSettings {
  stop?: string[];
  logprobs?: boolean;
  maxTokens?: number;
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
  /** Stop sequences, token logprobs, a call's own maxTokens (absent: the plain request, its cache key unchanged). */
  call?: CallSettings;
  /**
   * Repeated samples (`samples: n`): which answer of the n this call is (0-based). Sample 0 is the
   * call as it always was (same cache key); a later one is the same request under a cache key of
   * its own, so a model at temperature > 0 gives distinct answers and each is cached and resumed.
   */
  sample?: number;
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
  /**
   * Continues a text (`/v1/completions`: no chat template is applied; the prompt is sent as written),
   * for a method that must resume a model's partial reasoning. Absent where the generator has no such API.
   */
  complete?(prompt: string, options?: GenerateOptions): Promise<GenerationResult>;
  /** True when the response cache already holds the answer to these messages (a dry run counts them as free). */
  isCached?(messages: ChatMessage[], options?: Pick<GenerateOptions, 'sample'>): boolean;
  /**
   * Tokens the model counts for a page image as this generator prepares it (its `images.tokens`
   * formula on the prepared size). Absent for a text-only generator: a prompt with image parts is
   * then refused before any call, naming the model.
   */
  imageTokens?(image: PageImageRef): number;
  describe(): Record<string, unknown>;
}
