import { z } from 'zod';
import { retryAfterMs } from '../io/retryAfter.js';
import { sleep } from './retryPolicy.js';

/** `rateLimit:` on an endpoint's spec: what the provider allows, paced evenly. */
export const RateLimitSchema = z
  .object({
    requestsPerMinute: z.number().positive().optional(),
    tokensPerMinute: z.number().positive().optional().describe('Counted before the call as prompt tokens + maxTokens, corrected by the reported usage after'),
  })
  .strict();
export type RateLimit = z.infer<typeof RateLimitSchema>;

/** `1s`, `6m0s`, `20ms`, `1h2m3.5s` (OpenAI's x-ratelimit-reset-*) or plain seconds → milliseconds. */
export function parseResetDuration(text: string | null | undefined): number | undefined {
  if (!text) return undefined;
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  let total = 0;
  let matched = '';
  for (const m of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) {
    const value = Number(m[1]);
    total += m[2] === 'ms' ? value : m[2] === 's' ? value * 1000 : m[2] === 'm' ? value * 60_000 : value * 3_600_000;
    matched += m[0];
  }
  return matched === trimmed ? total : undefined;
}

export interface RateLimitStats {
  /** Requests the limiter let through. */
  requests: number;
  /** 429 responses received. */
  rateLimited: number;
  /** Time requests spent waiting for the limiter, summed. */
  waitedMs: number;
}

/** A reservation of tokens made before a call; `settle` corrects it with the reported usage. */
export interface RateReservation {
  tokens: number;
  waitedMs: number;
}

/** Requests are spaced 5% wider than the limit: at exactly the limit, network jitter gets a 429 now and then. */
const HEADROOM = 1 / 0.95;

export type Clock = { now: () => number; sleep: (ms: number, signal?: AbortSignal) => Promise<void> };

const realClock: Clock = { now: () => Date.now(), sleep };

/**
 * One endpoint's request and token pacing. Providers enforce a per-minute limit over short windows
 * (OpenAI takes 600 a minute as 10 a second), so requests are spaced evenly and each one's tokens
 * advance a token clock. Unconfigured limits are learnt from `x-ratelimit-*` headers; `remaining` 0
 * and a 429's `retry-after` pause every request to the endpoint until the window reopens.
 */
export class EndpointRateLimiter {
  readonly stats: RateLimitStats = { requests: 0, rateLimited: 0, waitedMs: 0 };
  private requestIntervalMs: number | undefined;
  /** The pace the limit gives; `requestIntervalMs` widens from it after 429s and returns to it. */
  private baseIntervalMs: number | undefined;
  private tokenMsPerToken: number | undefined;
  private nextRequestAt = 0;
  private tokenClock = 0;
  private pausedUntil = 0;
  private lastStartAt = -Infinity;
  private readonly configured: RateLimit;

  constructor(
    limit: RateLimit = {},
    private readonly clock: Clock = realClock,
  ) {
    this.configured = { ...limit };
    this.apply(limit);
  }

  private apply(limit: RateLimit): void {
    if (limit.requestsPerMinute) this.requestIntervalMs = this.baseIntervalMs = HEADROOM * (60_000 / limit.requestsPerMinute);
    if (limit.tokensPerMinute) this.tokenMsPerToken = HEADROOM * (60_000 / limit.tokensPerMinute);
  }

  /** Tightens the limits to `limit` where it is stricter (two configs naming one endpoint: the server's limit holds). */
  tighten(limit: RateLimit): void {
    const rpm = [this.configured.requestsPerMinute, limit.requestsPerMinute].filter((x): x is number => x !== undefined);
    const tpm = [this.configured.tokensPerMinute, limit.tokensPerMinute].filter((x): x is number => x !== undefined);
    if (rpm.length) this.configured.requestsPerMinute = Math.min(...rpm);
    if (tpm.length) this.configured.tokensPerMinute = Math.min(...tpm);
    this.apply(this.configured);
  }

  /** Waits for this request's slot (and its tokens' share of the minute); returns the reservation. */
  async acquire(tokens: number, signal?: AbortSignal): Promise<RateReservation> {
    const started = this.clock.now();
    // Slots are claimed in call order, before waiting, so concurrent callers are spaced, not bunched.
    let at = Math.max(started, this.pausedUntil);
    if (this.requestIntervalMs !== undefined) at = Math.max(at, this.nextRequestAt);
    // The token clock runs at the allowed rate: a request starts once the tokens before it are paid for.
    const pacedTokens = this.tokenMsPerToken !== undefined && tokens > 0;
    if (pacedTokens) at = Math.max(at, this.tokenClock);
    if (this.requestIntervalMs !== undefined) this.nextRequestAt = at + this.requestIntervalMs;
    if (pacedTokens) this.tokenClock = at + tokens * this.tokenMsPerToken!;
    for (;;) {
      const wait = at - this.clock.now();
      if (wait > 0) await this.clock.sleep(wait, signal);
      // A pause that began while this request waited (another request's 429) holds it too; it then
      // takes a new slot after the pause, so the waiting requests do not all resume at once.
      if (this.pausedUntil > this.clock.now()) {
        at = this.pausedUntil;
        if (this.requestIntervalMs !== undefined) {
          at = Math.max(at, this.nextRequestAt);
          this.nextRequestAt = at + this.requestIntervalMs;
        }
        continue;
      }
      // A stalled event loop fires late timers together: keep the spacing from the last request
      // that actually started, or the burst that pacing exists to prevent comes back.
      if (this.requestIntervalMs !== undefined && this.clock.now() < this.lastStartAt + this.requestIntervalMs) {
        at = this.lastStartAt + this.requestIntervalMs;
        this.nextRequestAt = Math.max(this.nextRequestAt, at + this.requestIntervalMs);
        continue;
      }
      break;
    }
    this.lastStartAt = this.clock.now();
    const waitedMs = Math.max(0, this.clock.now() - started);
    this.stats.requests++;
    this.stats.waitedMs += waitedMs;
    return { tokens, waitedMs };
  }

  /** Corrects a reservation with the tokens the endpoint reported using. */
  settle(reservation: RateReservation, actualTokens: number | undefined): void {
    if (this.tokenMsPerToken === undefined || actualTokens === undefined) return;
    this.tokenClock += (actualTokens - reservation.tokens) * this.tokenMsPerToken;
  }

  /** Reads a response's status and rate-limit headers (every response, successful or not). */
  observe(status: number, headers: Headers): void {
    const now = this.clock.now();
    if (status === 429) {
      this.stats.rateLimited++;
      // Paced yet refused (jitter on the way, a limit shared with others): space requests 5% wider,
      // up to twice the pace; successes bring it back (below).
      if (this.requestIntervalMs !== undefined && this.baseIntervalMs !== undefined) this.requestIntervalMs = Math.min(2 * this.baseIntervalMs, this.requestIntervalMs * 1.05);
      const after = retryAfterMs(headers, now) ?? parseResetDuration(headers.get('x-ratelimit-reset-requests')) ?? 1000;
      this.pausedUntil = Math.max(this.pausedUntil, now + after);
    }
    if (status < 400 && this.requestIntervalMs !== undefined && this.baseIntervalMs !== undefined && this.requestIntervalMs > this.baseIntervalMs) {
      this.requestIntervalMs = Math.max(this.baseIntervalMs, this.requestIntervalMs * 0.995);
    }
    // Learn the pace from the headers when none was configured: OpenAI's limits are per minute.
    const limitRequests = Number(headers.get('x-ratelimit-limit-requests'));
    if (!this.configured.requestsPerMinute && Number.isFinite(limitRequests) && limitRequests > 0 && this.baseIntervalMs !== HEADROOM * (60_000 / limitRequests)) {
      this.requestIntervalMs = this.baseIntervalMs = HEADROOM * (60_000 / limitRequests);
    }
    const limitTokens = Number(headers.get('x-ratelimit-limit-tokens'));
    if (!this.configured.tokensPerMinute && Number.isFinite(limitTokens) && limitTokens > 0) this.tokenMsPerToken = HEADROOM * (60_000 / limitTokens);
    for (const kind of ['requests', 'tokens'] as const) {
      const remaining = headers.get(`x-ratelimit-remaining-${kind}`);
      if (remaining !== null && Number(remaining) <= 0) {
        const reset = parseResetDuration(headers.get(`x-ratelimit-reset-${kind}`));
        if (reset !== undefined) this.pausedUntil = Math.max(this.pausedUntil, now + reset);
      }
    }
  }
}

// One limiter per endpoint for the whole process, like the concurrency bound: every generator,
// judge and extractor that calls the same server shares its allowance.
const limiters = new Map<string, EndpointRateLimiter>();

/** The rate limiter of `baseURL` (created on first use; a stricter configured limit tightens it). */
export function endpointRateLimiter(baseURL: string, limit: RateLimit = {}): EndpointRateLimiter {
  const key = baseURL.replace(/\/+$/, '');
  const existing = limiters.get(key);
  if (existing) {
    existing.tighten(limit);
    return existing;
  }
  const limiter = new EndpointRateLimiter(limit);
  limiters.set(key, limiter);
  return limiter;
}

/** A `fetch` that shows every response's status and headers to the endpoint's limiter. */
export function rateObservingFetch(limiter: EndpointRateLimiter, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    limiter.observe(response.status, response.headers);
    return response;
  };
}
