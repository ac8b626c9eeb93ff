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
  /** Set when every attempt (this many) returned an empty completion: the answer is empty, and counted. */
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

/** Per-call settings a method step needs (reasoning with search, FLARE); part of the response-cache key. */
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
  /** `refresh` skips the cache lookup and stores the new answer (a judge retrying an unusable output). */
  cache?: 'use' | 'refresh';
  /** Stop sequences, token logprobs, a call's own maxTokens (absent: the plain request, its cache key unchanged). */
  call?: CallSettings;
  /** Which of `samples: n` answers this is (0-based); each later sample has a cache key of its own. */
  sample?: number;
}

/** Any LLM (OpenAI-compatible endpoint, offline extractive baseline ...) behind one interface. */
export interface Generator {
  readonly name: string;
  /** Model name as recorded in run manifests and reports. */
  readonly model: string;
  generate(messages: ChatMessage[], options?: GenerateOptions): Promise<GenerationResult>;
  /** One turn of a tool-calling conversation; absent where the model cannot call tools. */
  chatTurn?(messages: BaseMessage[], options: ChatTurnOptions): Promise<GenerationResult>;
  /** Continues a text as written (`/v1/completions`), to resume partial reasoning; absent without such an API. */
  complete?(prompt: string, options?: GenerateOptions): Promise<GenerationResult>;
  /** True when the response cache already holds the answer to these messages (a dry run counts them as free). */
  isCached?(messages: ChatMessage[], options?: Pick<GenerateOptions, 'sample'>): boolean;
  /** Tokens of a page image as this generator prepares it; absent for a text-only generator (image prompts refused). */
  imageTokens?(image: PageImageRef): number;
  describe(): GeneratorDescription;
}

/** A generator as run manifests record it: the fields plans and run logs read, typed; anything else as is. */
export type GeneratorDescription = {
  name: string;
  /** The endpoint's model and its completion cap (`models[i].model`, `.maxTokens`). */
  model?: string;
  maxTokens?: number;
  /** Answers through a batch API: its calls cost the batch rate. */
  batch?: true;
  /** How a sampling stand-in's repeated samples differ. */
  sampling?: string;
  [key: string]: unknown;
};
