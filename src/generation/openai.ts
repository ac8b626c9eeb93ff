import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import type { RegistryEntry } from '../registry.js';
import type { ChatMessage } from '../prompting/types.js';
import { endpointLimiter } from './endpointConcurrency.js';
import { openResponseCache, responseCacheKey, type ResponseCache } from './responseCache.js';
import { splitReasoning } from './reasoning.js';
import { withRetries, type RetryHooks, type RetryPolicy } from './retryPolicy.js';
import type { GenerateOptions, GenerationResult, Generator, TokenUsage } from './types.js';
import { validatingFetch } from './validatingFetch.js';

export const OpenAIParamsSchema = z
  .object({
    /** Any OpenAI-compatible endpoint: OpenAI, DeepSeek, DashScope (Qwen), vLLM, Ollama (`http://localhost:11434/v1`). */
    baseURL: z.string().url(),
    model: z.string().min(1),
    /** Name of the environment variable holding the API key; omit for servers that need none. */
    apiKeyEnv: z.string().min(1).optional(),
    temperature: z.number().min(0).max(2).default(0),
    maxTokens: z.number().int().positive().optional(),
    /** Extra HTTP headers (not part of the cache key; never recorded in describe()). */
    headers: z.record(z.string(), z.string()).default({}),
    /** Extra request-body fields, e.g. `{ enable_thinking: false }` or `{ top_p: 0.9 }`; part of the cache key. */
    extraBody: z.record(z.string(), z.unknown()).default({}),
    timeoutMs: z.number().int().positive().default(300_000),
    /** Requests in flight to this endpoint at once (shared by everything that uses the same baseURL). */
    concurrency: z.number().int().positive().default(4),
    retries: z.number().int().min(0).default(5),
    retryBaseMs: z.number().int().min(0).default(1000),
    retryMaxMs: z.number().int().min(0).default(60_000),
    /** Longest server Retry-After honoured. */
    retryAfterMaxMs: z.number().int().min(0).default(300_000),
    /** Path of the SQLite response cache; omit for none. */
    cache: z.string().min(1).optional(),
  })
  .strict();
export type OpenAIParams = z.infer<typeof OpenAIParamsSchema>;

/** Test seams and run-time hooks that are not config. */
export interface OpenAIGeneratorOptions extends Pick<RetryHooks, 'sleep' | 'random' | 'onRetry'> {
  /** Environment to read the key from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export interface GeneratorStats {
  requests: number;
  retries: number;
  cacheHits: number;
  failures: number;
}

// Sent when no key is configured: the SDK insists on one, and a keyless server ignores it.
// Never falling back to OPENAI_API_KEY keeps a real key from reaching an arbitrary server.
const NO_KEY = 'no-key';

function toLangChain(message: ChatMessage): BaseMessage {
  if (message.role === 'system') return new SystemMessage(message.content);
  if (message.role === 'assistant') return new AIMessage(message.content);
  return new HumanMessage(message.content);
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : '')).join('');
  }
  return '';
}

/**
 * Any OpenAI-compatible chat endpoint through LangChain's ChatOpenAI. The retry policy is
 * hisrag's own (ChatOpenAI's retries are off), requests to one endpoint share a concurrency
 * bound, and successful responses may be cached on disk.
 *
 * An empty completion is returned as a valid empty answer (the benchmark rules score it 0) and
 * is not cached; a response that is not a chat completion at all is a `malformed-response`
 * failure (retried, then thrown). Failures are never cached.
 */
export class OpenAIGenerator implements Generator {
  readonly name = 'openai';
  readonly model: string;
  readonly stats: GeneratorStats = { requests: 0, retries: 0, cacheHits: 0, failures: 0 };
  // True private fields (#): JSON.stringify or a debugger dump of a generator cannot reach the
  // key, header values or the environment.
  readonly #chat: ChatOpenAI;
  readonly #cache?: ResponseCache;
  readonly #apiKey?: string;
  readonly #policy: RetryPolicy;
  readonly #params: OpenAIParams;
  readonly #options: OpenAIGeneratorOptions;

  constructor(params: OpenAIParams, options: OpenAIGeneratorOptions = {}) {
    this.#params = params;
    this.#options = options;
    this.model = params.model;
    const env = options.env ?? process.env;
    if (params.apiKeyEnv !== undefined) {
      const key = env[params.apiKeyEnv];
      if (!key) {
        throw new ConfigError(
          `generator "${params.model}": environment variable ${params.apiKeyEnv} (apiKeyEnv) is not set; export it with the API key, or remove apiKeyEnv for a server that needs no key`,
        );
      }
      this.#apiKey = key;
    }
    this.#chat = new ChatOpenAI({
      model: params.model,
      temperature: params.temperature,
      maxTokens: params.maxTokens,
      apiKey: this.#apiKey ?? NO_KEY,
      timeout: params.timeoutMs,
      maxRetries: 0,
      modelKwargs: params.extraBody,
      configuration: { baseURL: params.baseURL, defaultHeaders: params.headers, fetch: validatingFetch() },
    });
    this.#cache = params.cache ? openResponseCache(params.cache) : undefined;
    this.#policy = {
      retries: params.retries,
      baseDelayMs: params.retryBaseMs,
      maxDelayMs: params.retryMaxMs,
      maxRetryAfterMs: params.retryAfterMaxMs,
    };
  }

  /** Removes the API key (and header values) from text that may be recorded. */
  #redact = (text: string): string => {
    let out = text;
    for (const secret of [this.#apiKey, ...Object.values(this.#params.headers)]) {
      if (secret && secret.length >= 4) out = out.split(secret).join('***');
    }
    return out;
  };

  cacheKey(messages: ChatMessage[]): string {
    return responseCacheKey({
      model: this.#params.model,
      messages: messages.map(({ role, content }) => ({ role, content })),
      params: { temperature: this.#params.temperature, maxTokens: this.#params.maxTokens, extraBody: this.#params.extraBody },
    });
  }

  async generate(messages: ChatMessage[], options: GenerateOptions = {}): Promise<GenerationResult> {
    const key = this.#cache ? this.cacheKey(messages) : undefined;
    if (this.#cache && key && options.cache !== 'refresh') {
      const hit = this.#cache.get(key);
      if (hit) {
        this.stats.cacheHits++;
        return hit;
      }
    }
    const limit = endpointLimiter(this.#params.baseURL, this.#params.concurrency);
    try {
      const result = await limit(() =>
        withRetries(() => this.request(messages, options.signal), this.#policy, options.signal, {
          sleep: this.#options.sleep,
          random: this.#options.random,
          redact: this.#redact,
          onRetry: (info) => {
            this.stats.retries++;
            this.#options.onRetry?.(info);
          },
        }),
      );
      // Empty completions are answers (scored 0) but not cached: a re-run asks again.
      if (this.#cache && key && result.raw.trim() !== '') this.#cache.put(key, this.#params.model, result);
      return result;
    } catch (error) {
      this.stats.failures++;
      throw error;
    }
  }

  private async request(messages: ChatMessage[], signal?: AbortSignal): Promise<GenerationResult> {
    this.stats.requests++;
    const reply = await this.#chat.invoke(messages.map(toLangChain), { signal });
    const raw = contentText(reply.content);
    const reasoningContent = reply.additional_kwargs?.reasoning_content;
    const { text, reasoning } = splitReasoning(raw, typeof reasoningContent === 'string' ? reasoningContent : undefined);
    const usage: TokenUsage | undefined = reply.usage_metadata
      ? {
          promptTokens: reply.usage_metadata.input_tokens,
          completionTokens: reply.usage_metadata.output_tokens,
          totalTokens: reply.usage_metadata.total_tokens,
        }
      : undefined;
    return { text, raw, ...(reasoning ? { reasoning } : {}), ...(usage ? { usage } : {}) };
  }

  /** For run manifests: no key, no header values. */
  describe(): Record<string, unknown> {
    const { headers, ...rest } = this.#params;
    return { name: this.name, ...rest, headers: Object.keys(headers) };
  }
}

export const openaiGenerator: RegistryEntry<OpenAIParams, Generator, void> = {
  name: 'openai',
  description: 'Any OpenAI-compatible chat endpoint (OpenAI, DeepSeek, Qwen, vLLM, Ollama) through LangChain ChatOpenAI.',
  params: OpenAIParamsSchema,
  create: (params) => new OpenAIGenerator(params),
};
