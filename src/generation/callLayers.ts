import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ServiceUnavailableError } from '../errors.js';
import { GenerationError } from '../endpoints/generationError.js';
import type { EndpointRateLimiter } from '../endpoints/rateLimit.js';
import { classifyFailure, type RetryPolicy } from '../endpoints/retryPolicy.js';
import { BatchPendingError, type BatchQueue } from './batchQueue.js';
import type { ResponseCache } from './responseCache.js';
import type { GenerateOptions, GenerationResult } from './types.js';

// The layers one model request passes through, each a small function of the next; ChatModelGenerator composes them.

export interface GeneratorStats {
  requests: number;
  retries: number;
  cacheHits: number;
  failures: number;
  /** Completions still empty after every retry, returned as empty answers. */
  emptyAnswers: number;
}

/** A server of the model: where it is and its client. */
export interface ReplicaTarget {
  endpoint: string;
  chat: BaseChatModel;
}

/** One request as the layers see it. */
export interface Call {
  /** Response-cache key (the batch line's custom_id too); absent without a cache. */
  key: string | undefined;
  options: GenerateOptions;
  /** Estimated prompt tokens, reserved when pacing tokens. */
  promptTokens: number;
  /** The request as a batch input line's body; absent for one the Batch API cannot take (a completion). */
  batchBody?: () => Record<string, unknown>;
  /** Sends one attempt to one replica. */
  send: (signal: AbortSignal | undefined, replica: ReplicaTarget) => Promise<GenerationResult>;
  /** What this call met at the endpoint's rate limit: 429s received and time spent waiting for a slot. */
  meter: { rateLimited: number; waitedMs: number };
}

export type CallLayer = (call: Call) => Promise<GenerationResult>;

/** The retry policy of an endpoint's params (a model's, an external system's). */
export function retryPolicyOf(params: { retries: number; retryBaseMs: number; retryMaxMs: number; retryAfterMaxMs: number }): RetryPolicy {
  return { retries: params.retries, baseDelayMs: params.retryBaseMs, maxDelayMs: params.retryMaxMs, maxRetryAfterMs: params.retryAfterMaxMs };
}

/** The rate-limit note of a result, when the call met the limit. */
function rateLimitNote(meter: Call['meter']): Pick<GenerationResult, 'rateLimit'> {
  return meter.rateLimited || meter.waitedMs >= 1 ? { rateLimit: { rateLimited: meter.rateLimited, waitedMs: Math.round(meter.waitedMs) } } : {};
}

/**
 * Batch mode: answers come from the run's batches (through the cache); a live call only with
 * `fallback: live`. A call the Batch API cannot take (a completion) goes live in a batch run, in the
 * round that first asks it; the item's later rounds replay it from the cache, and it was still paid for.
 */
export function batchServing(queue: BatchQueue | undefined, cache: ResponseCache | undefined, stats: GeneratorStats, next: CallLayer): CallLayer {
  if (!queue) return next;
  return async (call) => {
    const { key, batchBody } = call;
    if (!key || !(queue.enabled || queue.mode === 'collect')) return next(call);
    if (!batchBody) {
      const hit = call.options.cache !== 'refresh' && queue.answeredLive.has(key) ? cache?.get(key) : undefined;
      if (hit) return { ...hit, cached: false };
      const result = await next(call);
      if (!result.cached && result.emptyAfterAttempts === undefined) queue.answeredLive.add(key);
      return result;
    }
    const served = queue.serve(key, call.options.cache === 'refresh', () => ({ custom_id: key, method: 'POST', url: '/v1/chat/completions', body: batchBody() }));
    if (served.kind === 'live') return next(call);
    if (served.kind === 'pending') throw new BatchPendingError();
    if (served.kind === 'answer') {
      if (served.result.cached) stats.cacheHits++;
      return served.result;
    }
    if (served.failure.empty) {
      stats.emptyAnswers++;
      return { text: '', raw: '', emptyAfterAttempts: Math.max(1, served.submissions) };
    }
    stats.failures++;
    const times = `${served.submissions} batch submission${served.submissions === 1 ? '' : 's'}`;
    throw new GenerationError(`batch: no answer after ${times}: ${served.failure.message}`, { reason: 'batch-failed', attempts: served.submissions });
  };
}

/**
 * What a call comes to: its answer, noting the rate limit it met; a completion still empty after
 * the retries as an empty answer (the benchmark's rule scores it 0 and the run counts it; it is not
 * cached, so a re-run asks again); an endpoint found down as a ServiceUnavailableError (exit 3).
 */
export function callOutcome(stats: GeneratorStats, next: CallLayer): CallLayer {
  return async (call) => {
    try {
      const result = await next(call);
      const note = rateLimitNote(call.meter);
      return note.rateLimit ? { ...result, ...note } : result;
    } catch (error) {
      if (error instanceof GenerationError && error.reason === 'empty-completion') {
        stats.emptyAnswers++;
        return { text: '', raw: '', emptyAfterAttempts: error.attempts, ...rateLimitNote(call.meter) };
      }
      stats.failures++;
      throw asRunFailure(error);
    }
  };
}

/** An endpoint found down as the run-stopping ServiceUnavailableError (exit 3); any other failure as it is. */
export function asRunFailure(error: unknown): unknown {
  const down = error instanceof GenerationError && error.reason === 'endpoint-unavailable';
  return down ? new ServiceUnavailableError(error.message.replace(/^endpoint-unavailable: /, '')) : error;
}

/** The response cache: a cached answer without a request (unless the call refreshes); a new answer stored. */
export function responseCaching(cache: ResponseCache | undefined, model: string, stats: GeneratorStats, next: CallLayer): CallLayer {
  if (!cache) return next;
  return async (call) => {
    if (!call.key) return next(call);
    const hit = call.options.cache !== 'refresh' ? cache.get(call.key) : undefined;
    if (hit) {
      stats.cacheHits++;
      return hit;
    }
    const result = await next(call);
    cache.put(call.key, model, result);
    return result;
  };
}

/** The endpoint's request and token pacing: every attempt waits for its slot; the reservation is settled with the usage reported. */
export function paced(pacing: EndpointRateLimiter | undefined, maxTokens: number | undefined, next: CallLayer): CallLayer {
  return async (call) => {
    const reservation = pacing ? await pacing.acquire(call.promptTokens + (maxTokens ?? 0), call.options.signal) : undefined;
    if (reservation) call.meter.waitedMs += reservation.waitedMs;
    try {
      const result = await next(call);
      const usage = result.usage;
      if (reservation) pacing!.settle(reservation, usage?.totalTokens ?? (usage ? (usage.promptTokens ?? 0) + (usage.completionTokens ?? 0) : undefined));
      return result;
    } catch (error) {
      if (classifyFailure(error).reason === 'rate-limited') call.meter.rateLimited++;
      throw error;
    }
  };
}
