import { afterEach, describe, expect, it } from 'vitest';
import { EndpointRateLimiter, parseResetDuration } from '../../src/endpoints/rateLimit.js';
import { OpenAIGenerator } from '../../src/generation/openai.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';

/**
 * A simulated clock: sleeps are timers on a queue, and `run` fires them in time order (letting
 * every promise settle in between), so pacing decisions become exact numbers.
 */
function fakeClock() {
  let now = 0;
  const timers: { at: number; resolve: () => void }[] = [];
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    now: () => now,
    sleep: (ms: number) => new Promise<void>((resolve) => timers.push({ at: now + ms, resolve })),
    async run<T>(work: Promise<T>): Promise<T> {
      let done = false;
      void work.finally(() => (done = true));
      await settle();
      while (!done) {
        timers.sort((a, b) => a.at - b.at);
        const next = timers.shift();
        if (!next) break;
        now = Math.max(now, next.at);
        next.resolve();
        await settle();
      }
      return work;
    },
  };
}

/** The 95% headroom every pace keeps (rateLimit.ts). */
const paced = (ms: number) => Math.round(ms / 0.95);

const headers = (entries: Record<string, string>) => new Headers(entries);

describe('reset durations (x-ratelimit-reset-*)', () => {
  it('reads OpenAI’s forms and plain seconds; refuses what it cannot read', () => {
    expect(parseResetDuration('1s')).toBe(1000);
    expect(parseResetDuration('6m0s')).toBe(360_000);
    expect(parseResetDuration('20ms')).toBe(20);
    expect(parseResetDuration('1h2m3.5s')).toBe(3_723_500);
    expect(parseResetDuration('2')).toBe(2000);
    expect(parseResetDuration('soon')).toBeUndefined();
    expect(parseResetDuration(null)).toBeUndefined();
  });
});

describe('pacing one endpoint', () => {
  it('spaces requests evenly at the configured rate, in call order, also when they arrive together', async () => {
    const clock = fakeClock();
    const limiter = new EndpointRateLimiter({ requestsPerMinute: 600 }, clock);
    const starts: number[] = [];
    await clock.run(
      Promise.all(
        Array.from({ length: 5 }, async () => {
          await limiter.acquire(0);
          starts.push(clock.now());
        }),
      ),
    );
    expect(starts.map(Math.round)).toEqual([0, 1, 2, 3, 4].map((i) => paced(100 * i)));
    expect(limiter.stats.requests).toBe(5);
  });

  it('paces tokens: a request starts once the tokens before it are paid for, corrected by the reported usage', async () => {
    const clock = fakeClock();
    const limiter = new EndpointRateLimiter({ tokensPerMinute: 60_000 }, clock); // 1 token per ms
    const first = await clock.run(limiter.acquire(500));
    expect(clock.now()).toBe(0);
    // It used only 100 of the 500 reserved: the next request may start at ~100 ms, not ~500.
    limiter.settle(first, 100);
    await clock.run(limiter.acquire(200));
    expect(Math.round(clock.now())).toBe(paced(100));
  });

  it('a 429 pauses every request to the endpoint for its Retry-After', async () => {
    const clock = fakeClock();
    const limiter = new EndpointRateLimiter({}, clock);
    limiter.observe(429, headers({ 'retry-after-ms': '750' }));
    await clock.run(limiter.acquire(0));
    expect(clock.now()).toBe(750);
    expect(limiter.stats.rateLimited).toBe(1);
  });

  it('learns the pace from x-ratelimit-limit-requests and waits out a window reported empty', async () => {
    const clock = fakeClock();
    const limiter = new EndpointRateLimiter({}, clock);
    limiter.observe(200, headers({ 'x-ratelimit-limit-requests': '120', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '2s' }));
    await clock.run(limiter.acquire(0));
    expect(clock.now()).toBe(2000);
    await clock.run(limiter.acquire(0));
    expect(Math.round(clock.now())).toBe(2000 + paced(500)); // 120 a minute: one every 500 ms, with headroom
  });

  it('a configured limit is not loosened by the headers', async () => {
    const clock = fakeClock();
    const limiter = new EndpointRateLimiter({ requestsPerMinute: 60 }, clock);
    limiter.observe(200, headers({ 'x-ratelimit-limit-requests': '6000' }));
    await clock.run(limiter.acquire(0));
    await clock.run(limiter.acquire(0));
    expect(Math.round(clock.now())).toBe(paced(1000));
  });
});

describe('a generator against an endpoint that allows 600 requests a minute (10 in any second)', () => {
  let server: OpenAIServer | undefined;
  afterEach(async () => server?.close());

  const generator = (url: string, extra: Record<string, unknown> = {}) =>
    new OpenAIGenerator({
      baseURL: url,
      model: 'm',
      temperature: 0,
      headers: {},
      extraBody: {},
      timeoutMs: 5000,
      concurrency: 8,
      retries: 8,
      retryBaseMs: 50,
      retryMaxMs: 2000,
      unavailableAfterMs: 30_000,
      retryAfterMaxMs: 10_000,
      ...extra,
    });
  const ask = (g: OpenAIGenerator, n: number) => Promise.all(Array.from({ length: n }, (_, i) => g.generate([{ role: 'user', content: `问题 ${i}` }])));

  it('with rateLimit.requestsPerMinute: 600 it receives no 429 and answers every request', async () => {
    server = await startOpenAIServer({ rateLimit: { requestsPerMinute: 600, headers: 'none' } });
    const results = await ask(generator(server.url, { rateLimit: { requestsPerMinute: 600 } }), 30);
    expect(results.every((r) => r.text.startsWith('模拟回答'))).toBe(true);
    expect(server.chatRequests().filter((r) => r.rateLimited)).toHaveLength(0);
    expect(server.chatRequests()).toHaveLength(30);
    // The wait for a slot is reported with the answer.
    expect(results.some((r) => (r.rateLimit?.waitedMs ?? 0) > 0)).toBe(true);
  }, 30_000);

  it('without the setting it adapts from the x-ratelimit headers and answers every request', async () => {
    server = await startOpenAIServer({ rateLimit: { requestsPerMinute: 600, headers: 'openai' } });
    const results = await ask(generator(server.url), 30);
    expect(results.every((r) => r.text.startsWith('模拟回答'))).toBe(true);
    const refused = server.chatRequests().filter((r) => r.rateLimited).length;
    // Only the first burst, before the first response's headers set the pace, can meet the limit.
    expect(refused).toBeLessThanOrEqual(8);
    expect(results.reduce((n, r) => n + (r.rateLimit?.rateLimited ?? 0), 0)).toBe(refused);
  }, 30_000);

  it('without the setting or headers, a 429’s Retry-After pauses the endpoint and every request is still answered', async () => {
    server = await startOpenAIServer({ rateLimit: { requestsPerMinute: 600, headers: 'none' } });
    const results = await ask(generator(server.url), 30);
    expect(results.every((r) => r.text.startsWith('模拟回答'))).toBe(true);
    expect(server.chatRequests().filter((r) => !r.rateLimited)).toHaveLength(30);
  }, 30_000);
});
