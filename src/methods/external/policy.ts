import { EndpointHealth } from '../../endpoints/endpointHealth.js';
import { GenerationError } from '../../endpoints/generationError.js';
import { openResponseCache, type ResponseCache } from '../../generation/responseCache.js';
import { classifyFailure, healthChecked, underRetries } from '../../endpoints/retryPolicy.js';
import { asRunFailure, retryPolicyOf } from '../../generation/callLayers.js';
import type { CallPolicyParams } from './callPolicyParams.js';

export interface CallResult<T> {
  value: T;
  cached: boolean;
  /** Requests made (0 when answered from the cache). */
  attempts: number;
  /** Set when every attempt gave an empty answer: the answer is empty, as for a model. */
  emptyAfterAttempts?: number;
  /** 429 responses received (each retried), as a model call counts them. */
  rateLimited: number;
}

/**
 * hisrag's model-call policy around any external call: the response cache (successes only,
 * keyed by the request), a concurrency bound per endpoint, retries with backoff and Retry-After
 * (`withRetries`), and the endpoint's circuit breaker (`EndpointHealth`: a system that fails
 * every request for a while stops the run with exit 3). Each attempt returns the raw text to
 * cache and its parsed value; a reply that cannot be used must throw (MalformedResponseError
 * is retried like a 5xx, EmptyCompletionError like an empty completion).
 */
export class CallPolicy {
  readonly endpoint: string;
  readonly stats = { requests: 0, retries: 0, cacheHits: 0, failures: 0 };
  readonly #params: CallPolicyParams;
  readonly #health: EndpointHealth;
  readonly #cache?: ResponseCache;
  readonly #redact: (text: string) => string;

  constructor(endpoint: string, params: CallPolicyParams, options: { secrets?: string[] } = {}) {
    this.endpoint = endpoint;
    this.#params = params;
    this.#health = new EndpointHealth(endpoint, { unavailableAfterMs: params.unavailableAfterMs });
    this.#cache = params.cache ? openResponseCache(params.cache) : undefined;
    const secrets = (options.secrets ?? []).filter((s) => s.length >= 4);
    this.#redact = (text) => secrets.reduce((out, secret) => out.split(secret).join('***'), text);
  }

  redact(text: string): string {
    return this.#redact(text);
  }

  async call<T>(key: string | undefined, signal: AbortSignal | undefined, attempt: (signal?: AbortSignal) => Promise<{ raw: string; value: T }>, fromCache: (raw: string) => T): Promise<CallResult<T>> {
    const cache = this.#cache;
    if (cache && key) {
      const hit = cache.get(key);
      if (hit) {
        try {
          const value = fromCache(hit.raw);
          this.stats.cacheHits++;
          return { value, cached: true, attempts: 0, rateLimited: 0 };
        } catch {
          // An entry this mapping cannot read is a miss; the next success overwrites it.
        }
      }
    }
    const health = this.#health;
    let attempts = 0;
    let rateLimited = 0;
    let raw = '';
    const once = healthChecked(health, this.#redact, async () => {
      attempts++;
      this.stats.requests++;
      try {
        const result = await attempt(signal);
        raw = result.raw;
        return result.value;
      } catch (error) {
        if (classifyFailure(error).reason === 'rate-limited') rateLimited++;
        throw error;
      }
    });
    try {
      const value = await underRetries({ label: this.endpoint, concurrency: this.#params.concurrency }, retryPolicyOf(this.#params), { redact: this.#redact }, this.stats, signal, once);
      if (cache && key) cache.put(key, this.endpoint, { text: '', raw });
      return { value, cached: false, attempts, rateLimited };
    } catch (error) {
      if (error instanceof GenerationError && error.reason === 'empty-completion') {
        return { value: undefined as T, cached: false, attempts, rateLimited, emptyAfterAttempts: error.attempts };
      }
      this.stats.failures++;
      throw asRunFailure(error);
    }
  }
}
