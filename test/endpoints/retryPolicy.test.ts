import { describe, expect, it } from 'vitest';
import { GenerationError } from '../../src/endpoints/generationError.js';
import { backoffDelay, classifyFailure, withRetries } from '../../src/endpoints/retryPolicy.js';
import { retryAfterMs } from '../../src/io/retryAfter.js';

const policy = { retries: 3, baseDelayMs: 100, maxDelayMs: 250, maxRetryAfterMs: 5000 };

describe('retry policy', () => {
  it('reads Retry-After as seconds, as an HTTP date, and prefers retry-after-ms', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4000)).toBe(6000);
    expect(retryAfterMs(new Headers({ 'retry-after': '3', 'retry-after-ms': '120' }))).toBe(120);
    expect(retryAfterMs(new Headers())).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': ' ', 'retry-after-ms': '' }))).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': '' })).toBeUndefined();
  });

  it('caps the backoff step at maxDelayMs', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, policy, () => 1))).toEqual([100, 200, 250, 250]);
  });

  it('classifies statuses: 429 and 5xx retry, other 4xx do not', () => {
    const status = (s: number) => Object.assign(new Error('x'), { status: s });
    expect(classifyFailure(status(429))).toMatchObject({ reason: 'rate-limited', retryable: true });
    expect(classifyFailure(status(503))).toMatchObject({ reason: 'server-error', retryable: true });
    expect(classifyFailure(status(400))).toMatchObject({ reason: 'client-error', retryable: false });
    expect(classifyFailure(new Error('surprise'))).toMatchObject({ reason: 'unknown', retryable: false });
  });

  it('caps a long Retry-After at maxRetryAfterMs', async () => {
    const delays: number[] = [];
    let n = 0;
    const result = await withRetries(
      async () => {
        if (n++ === 0) throw Object.assign(new Error('slow down'), { status: 429, headers: new Headers({ 'retry-after': '3600' }) });
        return 'ok';
      },
      policy,
      undefined,
      { sleep: async (ms) => void delays.push(ms) },
    );
    expect(result).toBe('ok');
    expect(delays).toEqual([5000]);
  });

  it('removes secrets from the final error message', async () => {
    const error = await withRetries(
      async () => {
        throw Object.assign(new Error('bad key sk-abcdef'), { status: 401 });
      },
      policy,
      undefined,
      { redact: (t) => t.replace('sk-abcdef', '***') },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GenerationError);
    expect((error as Error).message).toBe('auth 401: bad key ***');
  });
});
