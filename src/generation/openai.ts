import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import type { RegistryEntry } from '../registry.js';
import { ChatModelGenerator } from './chatModelGenerator.js';
import { openResponseCache } from './responseCache.js';
import type { RetryHooks } from './retryPolicy.js';
import type { Generator } from './types.js';
import { validatingFetch } from './validatingFetch.js';
import { RateLimitSchema, endpointRateLimiter, rateObservingFetch } from './rateLimit.js';

export const OpenAIParamsSchema = z
  .object({
    /** Any OpenAI-compatible endpoint: OpenAI, DeepSeek, DashScope (Qwen), vLLM, Ollama (`http://localhost:11434/v1`). */
    /**
     * The endpoint, or a list of replicas of one model (vLLM data-parallel, several servers): each
     * request goes to the replica with the fewest in flight; a failing replica is drained and tried
     * again later; the run stops (exit 3) only when every replica is down.
     */
    baseURL: z.union([z.string().url(), z.array(z.string().url()).min(1, { error: 'expected at least one replica URL' })]),
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
    /** An endpoint failing every request (connection refused, DNS, timeouts, 5xx) this long stops the run. */
    unavailableAfterMs: z.number().int().positive().default(30_000),
    /** Longest server Retry-After honoured. */
    retryAfterMaxMs: z.number().int().min(0).default(300_000),
    /** Path of the SQLite response cache; omit for none. */
    cache: z.string().min(1).optional(),
    /** The provider's limits, paced evenly (shared by everything that uses the same baseURL); without it the endpoint's x-ratelimit-* headers set the pace. */
    rateLimit: RateLimitSchema.optional(),
  })
  .strict();
export type OpenAIParams = z.infer<typeof OpenAIParamsSchema>;

/** Test seams and run-time hooks that are not config. */
export interface OpenAIGeneratorOptions extends Pick<RetryHooks, 'sleep' | 'random' | 'onRetry'> {
  /** Environment to read the key from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

// Sent when no key is configured: the SDK insists on one, and a keyless server ignores it.
// Never falling back to OPENAI_API_KEY keeps a real key from reaching an arbitrary server.
const NO_KEY = 'no-key';

/** The key named by `apiKeyEnv`, or a ConfigError naming the variable. */
function apiKeyFrom(params: OpenAIParams, env: NodeJS.ProcessEnv): string | undefined {
  if (params.apiKeyEnv === undefined) return undefined;
  const key = env[params.apiKeyEnv];
  if (!key) {
    throw new ConfigError(
      `generator "${params.model}": environment variable ${params.apiKeyEnv} (apiKeyEnv) is not set; export it with the API key, or remove apiKeyEnv for a server that needs no key`,
    );
  }
  return key;
}

/**
 * Any OpenAI-compatible chat endpoint through LangChain's ChatOpenAI. The retry policy is
 * hisrag's own (ChatOpenAI's retries are off), requests to one endpoint share a concurrency
 * bound, and successful responses may be cached on disk.
 *
 * An empty completion (HTTP 200, no text) is retried like a 5xx; one still empty after the
 * retries is returned as an empty answer (`emptyAfterAttempts`), which the benchmark rules score
 * 0 and runs count, and is not cached. A response that is not a chat completion at all is a
 * `malformed-response` failure (retried, then thrown). An endpoint that fails every request for
 * `unavailableAfterMs` stops the run (ServiceUnavailableError). Failures are never cached.
 */
export class OpenAIGenerator extends ChatModelGenerator {
  constructor(params: OpenAIParams, options: OpenAIGeneratorOptions = {}) {
    const apiKey = apiKeyFrom(params, options.env ?? process.env);
    const urls = Array.isArray(params.baseURL) ? params.baseURL : [params.baseURL];
    // One pool is one endpoint for pacing and concurrency: its replicas share the allowance, each holds `concurrency` in flight.
    const endpoint = urls.join(' | ');
    const rateLimiter = endpointRateLimiter(endpoint, params.rateLimit ?? {});
    const chatFor = (baseURL: string) =>
      new ChatOpenAI({
        model: params.model,
        temperature: params.temperature,
        maxTokens: params.maxTokens,
        apiKey: apiKey ?? NO_KEY,
        timeout: params.timeoutMs,
        maxRetries: 0,
        modelKwargs: params.extraBody,
        configuration: { baseURL, defaultHeaders: params.headers, fetch: validatingFetch(rateObservingFetch(rateLimiter)) },
      });
    const replicas = urls.map((url) => ({ endpoint: url, chat: chatFor(url) }));
    const { headers, apiKeyEnv, ...recorded } = params;
    super(replicas[0]!.chat, {
      name: 'openai',
      model: params.model,
      endpoint,
      ...(replicas.length > 1 ? { replicas } : {}),
      concurrency: params.concurrency * urls.length,
      rateLimiter,
      maxTokens: params.maxTokens,
      policy: {
        retries: params.retries,
        baseDelayMs: params.retryBaseMs,
        maxDelayMs: params.retryMaxMs,
        maxRetryAfterMs: params.retryAfterMaxMs,
      },
      unavailableAfterMs: params.unavailableAfterMs,
      cache: params.cache ? openResponseCache(params.cache) : undefined,
      cacheParams: { temperature: params.temperature, maxTokens: params.maxTokens, extraBody: params.extraBody },
      secrets: [apiKey, ...Object.values(headers)],
      hooks: { sleep: options.sleep, random: options.random, onRetry: options.onRetry },
      // For run manifests: the variable's name, header names; never the key or header values.
      describe: () => ({ name: 'openai', ...recorded, ...(apiKeyEnv ? { apiKeyEnv } : {}), headers: Object.keys(headers) }),
    });
  }
}

export const openaiGenerator: RegistryEntry<OpenAIParams, Generator, void> = {
  name: 'openai',
  description: 'Any OpenAI-compatible chat endpoint (OpenAI, DeepSeek, Qwen, vLLM, Ollama) through LangChain ChatOpenAI.',
  params: OpenAIParamsSchema,
  create: (params) => new OpenAIGenerator(params),
};
