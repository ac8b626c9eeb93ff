import pLimit, { type LimitFunction } from 'p-limit';
import pRetry from 'p-retry';
import { retryAfterMs } from '../io/retryAfter.js';
import { EndpointUnavailableError, type EndpointHealth } from './endpointHealth.js';
import { EmptyCompletionError, GenerationError, MalformedResponseError, type FailureClass } from './generationError.js';

export interface RetryPolicy {
  /** Retries after the first attempt (0 = one attempt only). */
  retries: number;
  /** Backoff before retry n is about baseDelayMs · 2^(n-1), with jitter, capped at maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Longest Retry-After honoured; longer requests are cut to this. */
  maxRetryAfterMs: number;
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current && chain.length < 8 && !chain.includes(current)) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** Sorts an error thrown by the OpenAI SDK / LangChain into a reason and whether to retry it. */
export function classifyFailure(error: unknown): FailureClass {
  const chain = causes(error);
  if (chain.some((e) => e instanceof EndpointUnavailableError)) return { reason: 'endpoint-unavailable', retryable: false };
  if (chain.some((e) => e instanceof MalformedResponseError)) return { reason: 'malformed-response', retryable: true };
  if (chain.some((e) => e instanceof EmptyCompletionError)) return { reason: 'empty-completion', retryable: true };
  const named = (name: string) => chain.some((e) => e instanceof Error && (e.name === name || e.constructor.name === name));
  if (named('AbortError') || named('APIUserAbortError')) return { reason: 'aborted', retryable: false };
  if (named('TimeoutError') || named('APIConnectionTimeoutError')) return { reason: 'timeout', retryable: true };
  const withStatus = chain.find((e) => typeof (e as { status?: unknown })?.status === 'number') as
    | { status: number; headers?: unknown }
    | undefined;
  if (withStatus) {
    const status = withStatus.status;
    const after = retryAfterMs(withStatus.headers);
    if (status === 429) return { reason: 'rate-limited', retryable: true, status, retryAfterMs: after };
    if (status >= 500 || status === 408 || status === 409) return { reason: 'server-error', retryable: true, status, retryAfterMs: after };
    if (status === 401 || status === 403) return { reason: 'auth', retryable: false, status };
    return { reason: 'client-error', retryable: false, status };
  }
  if (named('APIConnectionError') || chain.some((e) => /ECONNRESET|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|socket hang up|fetch failed|terminated|other side closed/i.test(String((e as Error)?.message ?? e)))) {
    return { reason: 'connection', retryable: true };
  }
  if (chain.some((e) => e instanceof SyntaxError)) return { reason: 'malformed-response', retryable: true };
  return { reason: 'unknown', retryable: false };
}

/** One line saying what went wrong, taking the most specific message in the cause chain. */
export function describeFailure(error: unknown): string {
  const chain = causes(error);
  const specific = chain.find((e) => e instanceof MalformedResponseError || e instanceof EmptyCompletionError || e instanceof EndpointUnavailableError) as Error | undefined;
  if (specific) return specific.message;
  const first = chain[0];
  const head = first instanceof Error ? first.message.split('\n')[0]! : String(first);
  const cause = chain[1];
  if (cause instanceof Error && cause.message && !head.includes(cause.message)) {
    const deeper = chain[2] instanceof Error ? ` (${(chain[2] as Error).message})` : '';
    return `${head} ${cause.message}${deeper}`;
  }
  return head;
}

/** Exponential backoff with "equal jitter": half the step fixed, half random, so retries spread out. */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return step / 2 + random() * (step / 2);
}

/** Waits `ms`, rejecting early when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface RetryHooks {
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  onRetry?: (info: { attempt: number; delayMs: number; failure: FailureClass; error: unknown }) => void;
  /** Makes error messages safe to record (removes secrets). */
  redact?: (text: string) => string;
}

/**
 * Runs `attempt` until it succeeds, a failure is not retryable, or retries run out; then throws
 * a GenerationError carrying the reason and the last failure. p-retry runs the attempts; the wait
 * before each retry is chosen here (`onFailedAttempt`), because it depends on the failure — a
 * server's Retry-After, else exponential backoff with jitter — and tests inject the sleep.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  signal?: AbortSignal,
  hooks: RetryHooks = {},
): Promise<T> {
  const wait = hooks.sleep ?? sleep;
  const random = hooks.random ?? Math.random;
  const redact = hooks.redact ?? ((text: string) => text);
  let attempts = 0;
  let last: unknown;
  try {
    return await pRetry(
      async () => {
        attempts++;
        try {
          return await attempt();
        } catch (error) {
          last = error;
          throw error;
        }
      },
      {
        retries: policy.retries,
        // No delay of p-retry's own: onFailedAttempt waits as long as this failure asks.
        minTimeout: 0,
        maxTimeout: 0,
        randomize: false,
        shouldRetry: (error) => classifyFailure(error).retryable && !signal?.aborted,
        onFailedAttempt: async (error) => {
          const failure = classifyFailure(error);
          if (!failure.retryable || error.retriesLeft <= 0 || signal?.aborted) return;
          const delayMs =
            failure.retryAfterMs !== undefined
              ? Math.min(failure.retryAfterMs, policy.maxRetryAfterMs)
              : backoffDelay(error.attemptNumber, policy, random);
          hooks.onRetry?.({ attempt: error.attemptNumber, delayMs, failure, error });
          try {
            await wait(delayMs, signal);
          } catch {
            throw new GenerationError(`aborted while waiting to retry: ${redact(describeFailure(error))}`, { reason: 'aborted', attempts });
          }
        },
      },
    );
  } catch (caught) {
    if (caught instanceof GenerationError) throw caught;
    // p-retry throws the most frequent error when retries run out; the last one says most.
    const error = last ?? caught;
    const failure = classifyFailure(error);
    const message = redact(describeFailure(error));
    const exhausted = failure.retryable && !signal?.aborted;
    const why = exhausted ? ` (gave up after ${attempts} attempts)` : '';
    throw new GenerationError(`${failure.reason}${failure.status ? ` ${failure.status}` : ''}: ${message}${why}`, {
      reason: signal?.aborted ? 'aborted' : failure.reason,
      attempts,
      status: failure.status,
    });
  }
}

// One concurrency limiter per endpoint for the whole process: generators, judges and extractors that
// talk to the same server share its bound, and of two configs naming it, the smaller bound holds.
const limiters = new Map<string, LimitFunction>();

function endpointLimiter(baseURL: string, concurrency: number): LimitFunction {
  const key = baseURL.replace(/\/+$/, '');
  const limiter = limiters.get(key) ?? limiters.set(key, pLimit(concurrency)).get(key)!;
  limiter.concurrency = Math.min(limiter.concurrency, concurrency);
  return limiter;
}

/** Attempts within the endpoint's concurrency bound (shared per endpoint), retried under the policy: a generator's and an external method's. */
export function underRetries<R>(
  endpoint: { label: string; concurrency: number },
  policy: RetryPolicy,
  hooks: Pick<RetryHooks, 'sleep' | 'random' | 'onRetry'> & { redact: (text: string) => string },
  stats: { retries: number },
  signal: AbortSignal | undefined,
  attempt: () => Promise<R>,
): Promise<R> {
  const onRetry: RetryHooks['onRetry'] = (info) => {
    stats.retries++;
    hooks.onRetry?.(info);
  };
  return endpointLimiter(endpoint.label, endpoint.concurrency)(() => withRetries(attempt, policy, signal, { ...hooks, onRetry }));
}

/** Every attempt (a generator's, an external method's) reports to the endpoint's health, which may stop the run. */
export function healthChecked<A extends unknown[], R>(health: EndpointHealth, redact: (text: string) => string, next: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    health.assertAvailable();
    try {
      const result = await next(...args);
      health.recordAnswer();
      return result;
    } catch (error) {
      if (error instanceof EmptyCompletionError) health.recordAnswer();
      else health.recordFailure(classifyFailure(error), redact(describeFailure(error)));
      health.assertAvailable();
      throw error;
    }
  };
}
