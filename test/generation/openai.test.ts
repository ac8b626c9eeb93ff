import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, ServiceUnavailableError } from '../../src/errors.js';
import { GenerationError } from '../../src/endpoints/generationError.js';
import { OpenAIGenerator, OpenAIParamsSchema, type OpenAIGeneratorOptions } from '../../src/generation/openai.js';
import { closeResponseCaches } from '../../src/generation/responseCache.js';
import { generators } from '../../src/generation/registry.js';
import type { StartOptions } from '../helpers/openaiServer.js';
import { historyQuestion, serverPerTest } from '../helpers/serverPerTest.js';

const question = historyQuestion;
const server = serverPerTest();

/** A generator whose retry sleeps are recorded instead of waited. */
function generator(url: string, params: Record<string, unknown> = {}, options: OpenAIGeneratorOptions = {}) {
  const delays: number[] = [];
  const gen = new OpenAIGenerator(
    OpenAIParamsSchema.parse({ baseURL: url, model: 'test-model', retryBaseMs: 100, ...params }),
    { sleep: async (ms) => void delays.push(ms), random: () => 1, ...options },
  );
  return { gen, delays };
}

const script = (...kinds: (StartOptions['faults'] & object)['script'] & object) => ({ rate: 0, kinds: [], seed: 0, script: kinds });

describe('openai generator', () => {
  it('strips reasoning from the scored text and keeps raw output, reasoning and token usage', async () => {
    const s = await server({ respond: () => ({ content: '<think>先想想</think>1069年', reasoning_content: '推理过程' }) });
    const result = await generator(s.url).gen.generate(question);
    expect(result.text).toBe('1069年');
    expect(result.raw).toBe('<think>先想想</think>1069年');
    expect(result.reasoning).toContain('推理过程');
    expect(result.reasoning).toContain('先想想');
    expect(result.usage?.totalTokens).toBeGreaterThan(0);
  });

  it('sends model, temperature 0, max tokens, extra body fields and extra headers', async () => {
    const s = await server();
    await generator(s.url, { maxTokens: 64, headers: { 'X-Trace': 'abc' }, extraBody: { enable_thinking: false } }).gen.generate(question);
    const [request] = s.chatRequests();
    expect(request!.body).toMatchObject({ model: 'test-model', temperature: 0, max_tokens: 64, enable_thinking: false });
    expect(request!.headers['x-trace']).toBe('abc');
  });

  it('retries a 500 and returns the later success', async () => {
    const s = await server({ faults: script('500', '500') });
    const { gen, delays } = generator(s.url, { retries: 3 });
    const result = await gen.generate(question);
    expect(result.text).toContain('模拟回答');
    expect(s.chatRequests()).toHaveLength(3);
    expect(delays).toHaveLength(2);
  });

  it('backs off exponentially with jitter when no Retry-After is given', async () => {
    const s = await server({ faults: script('500', '500', '500') });
    const { gen, delays } = generator(s.url, { retries: 3, retryBaseMs: 100 }, { random: () => 0 });
    await gen.generate(question);
    // Equal jitter: half the step fixed, so random() = 0 gives exactly step / 2.
    expect(delays).toEqual([50, 100, 200]);
  });

  it('waits as long as the server asks in Retry-After after a 429', async () => {
    const s = await server({ faults: { ...script('429'), retryAfterSeconds: 7 } });
    const { gen, delays } = generator(s.url, { retries: 2 });
    await gen.generate(question);
    expect(delays).toEqual([7000]);
  });

  it('retries timeouts, connection resets and malformed bodies', async () => {
    const s = await server({ faults: script('timeout', 'reset', 'malformed') });
    const { gen } = generator(s.url, { retries: 3, timeoutMs: 300 });
    const result = await gen.generate(question);
    expect(result.text).toContain('模拟回答');
    expect(s.chatRequests().map((r) => r.fault)).toEqual(['timeout', 'reset', 'malformed', undefined]);
  });

  it('throws a GenerationError with reason and attempts once retries run out', async () => {
    const s = await server({ faults: script('500', '500', '500', '500') });
    const { gen } = generator(s.url, { retries: 2 });
    const error = await gen.generate(question).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GenerationError);
    expect(error).toMatchObject({ reason: 'server-error', attempts: 3, status: 500 });
    expect(s.chatRequests()).toHaveLength(3);
  });

  it('reports a malformed body as malformed-response, naming what was wrong', async () => {
    const s = await server({ faults: script('malformed', 'malformed') });
    const error = await generator(s.url, { retries: 1 }).gen.generate(question).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'malformed-response' });
    expect((error as Error).message).toContain('not valid JSON');
  });

  it('does not retry an authentication failure, and its message does not contain the key', async () => {
    const s = await server({ requireKey: 'right-key' });
    const { gen } = generator(s.url, { apiKeyEnv: 'TEST_KEY', retries: 3 }, { env: { TEST_KEY: 'sk-wrong-key-123456' } });
    const error = await gen.generate(question).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'auth', attempts: 1, status: 401 });
    expect((error as Error).message).not.toContain('sk-wrong-key-123456');
    expect(s.chatRequests()).toHaveLength(1);
  });

  it('retries an empty completion like a 5xx, and answers once the endpoint does', async () => {
    const s = await server({ faults: script('empty', 'empty') });
    const { gen, delays } = generator(s.url, { retries: 3 });
    const result = await gen.generate(question);
    expect(result.text).toContain('模拟回答');
    expect(result.emptyAfterAttempts).toBeUndefined();
    expect(s.chatRequests()).toHaveLength(3);
    expect(delays).toHaveLength(2);
  });

  it('returns an answer still empty after every retry as empty, saying after how many attempts', async () => {
    const s = await server({ faults: script('empty', 'empty', 'empty', 'empty') });
    const { gen } = generator(s.url, { retries: 3 });
    const result = await gen.generate(question);
    expect(result.text).toBe('');
    expect(result.emptyAfterAttempts).toBe(4);
    expect(gen.stats.emptyAnswers).toBe(1);
    expect(s.chatRequests()).toHaveLength(4);
  });

  it('takes a reasoning-only reply as the model\'s (empty) answer without retrying', async () => {
    const s = await server({ respond: () => ({ content: '', reasoning_content: '想了很久，没有结论' }) });
    const result = await generator(s.url, { retries: 3 }).gen.generate(question);
    expect(result.text).toBe('');
    expect(result.reasoning).toContain('没有结论');
    expect(s.chatRequests()).toHaveLength(1);
  });

  it('stops without retrying when the caller aborts', async () => {
    const s = await server({ faults: script('timeout') });
    const { gen } = generator(s.url, { retries: 3, timeoutMs: 60_000 });
    const controller = new AbortController();
    const pending = gen.generate(question, { signal: controller.signal }).catch((e: unknown) => e);
    while (s.chatRequests().length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    expect(await pending).toMatchObject({ reason: 'aborted' });
    expect(s.chatRequests()).toHaveLength(1);
  });

  it('uses the key from the named environment variable', async () => {
    const s = await server({ requireKey: 'sk-good' });
    const result = await generator(s.url, { apiKeyEnv: 'TEST_KEY' }, { env: { TEST_KEY: 'sk-good' } }).gen.generate(question);
    expect(result.text).toContain('模拟回答');
  });

  it('refuses a missing key variable with a ConfigError naming it', () => {
    expect(() => generator('http://127.0.0.1:9/v1', { apiKeyEnv: 'HISRAG_NO_SUCH_KEY' }, { env: {} })).toThrow(ConfigError);
    expect(() => generator('http://127.0.0.1:9/v1', { apiKeyEnv: 'HISRAG_NO_SUCH_KEY' }, { env: {} })).toThrow(/HISRAG_NO_SUCH_KEY/);
  });

  it('never sends OPENAI_API_KEY to a server configured without a key', async () => {
    const s = await server();
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-real-openai-key';
    try {
      await generator(s.url).gen.generate(question);
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
    expect(s.chatRequests()[0]!.headers.authorization).toBe('Bearer no-key');
  });

  it('keeps at most `concurrency` requests in flight per endpoint, across generators', async () => {
    let inFlight = 0;
    let peak = 0;
    const s = await server({
      respond: async () => {
        peak = Math.max(peak, ++inFlight);
        await new Promise((r) => setTimeout(r, 20));
        inFlight--;
        return 'ok';
      },
    });
    const a = generator(s.url, { concurrency: 2 }).gen;
    const b = generator(s.url, { concurrency: 2, model: 'judge-model' }).gen;
    const calls = Array.from({ length: 8 }, (_, i) =>
      (i % 2 ? a : b).generate([{ role: 'user', content: `问题${i}` }]),
    );
    await Promise.all(calls);
    expect(peak).toBe(2);
  });

  it('describes itself without the key or header values', async () => {
    const { gen } = generator('http://127.0.0.1:9/v1', { apiKeyEnv: 'TEST_KEY', headers: { Authorization: 'Bearer sk-hdr' } }, { env: { TEST_KEY: 'sk-desc-secret' } });
    const text = JSON.stringify(gen.describe()) + JSON.stringify(gen);
    expect(text).not.toContain('sk-desc-secret');
    expect(text).not.toContain('sk-hdr');
    expect(text).toContain('TEST_KEY');
  });

  it('is registered as "openai" with validated params', async () => {
    expect(generators.names()).toEqual(['extractive', 'logprob-writer', 'openai', 'page-reader', 'search-reasoner']);
    expect(() => generators.parse({ name: 'openai', model: 'x' }, 'models[0]')).toThrow(/models\[0\]\.baseURL/);
  });
});

describe('openai generator response cache', () => {
  const cacheFile = () => join(mkdtempSync(join(tmpdir(), 'hisrag-cache-')), 'responses.sqlite');

  it('serves a repeated request from the cache without calling the server', async () => {
    const s = await server();
    const file = cacheFile();
    const { gen } = generator(s.url, { cache: file });
    const first = await gen.generate(question);
    const second = await generator(s.url, { cache: file }).gen.generate(question);
    expect(second).toMatchObject({ text: first.text, raw: first.raw, cached: true });
    expect(first.cached).toBeUndefined();
    expect(s.chatRequests()).toHaveLength(1);
  });

  it('misses when the messages, model or parameters differ', async () => {
    const s = await server();
    const file = cacheFile();
    await generator(s.url, { cache: file }).gen.generate(question);
    await generator(s.url, { cache: file }).gen.generate([{ role: 'user', content: '另一个问题' }]);
    await generator(s.url, { cache: file, model: 'other-model' }).gen.generate(question);
    await generator(s.url, { cache: file, temperature: 0.7 }).gen.generate(question);
    expect(s.chatRequests()).toHaveLength(4);
  });

  it('never caches a failure', async () => {
    const s = await server({ faults: script('500') });
    const file = cacheFile();
    await expect(generator(s.url, { cache: file, retries: 0 }).gen.generate(question)).rejects.toBeInstanceOf(GenerationError);
    const result = await generator(s.url, { cache: file, retries: 0 }).gen.generate(question);
    expect(result.cached).toBeUndefined();
    expect(s.chatRequests()).toHaveLength(2);
  });

  it('keeps the API key and header values out of the cache file', async () => {
    const s = await server({ requireKey: 'sk-cache-secret-987' });
    const file = cacheFile();
    const { gen } = generator(s.url, { cache: file, apiKeyEnv: 'TEST_KEY', headers: { 'X-Api-Token': 'hdr-secret-654' } }, { env: { TEST_KEY: 'sk-cache-secret-987' } });
    await gen.generate(question);
    closeResponseCaches();
    const dir = join(file, '..');
    for (const name of readdirSync(dir)) {
      const bytes = readFileSync(join(dir, name)).toString('latin1');
      expect(bytes).not.toContain('sk-cache-secret-987');
      expect(bytes).not.toContain('hdr-secret-654');
    }
  });
});

describe('openai generator cache control', () => {
  const cacheFile = () => join(mkdtempSync(join(tmpdir(), 'hisrag-cache-')), 'responses.sqlite');

  it('asks the server again with cache: refresh and stores the new answer', async () => {
    let n = 0;
    const s = await server({ respond: () => `回答${++n}` });
    const file = cacheFile();
    await generator(s.url, { cache: file }).gen.generate(question);
    const refreshed = await generator(s.url, { cache: file }).gen.generate(question, { cache: 'refresh' });
    const later = await generator(s.url, { cache: file }).gen.generate(question);
    expect(refreshed).toMatchObject({ text: '回答2' });
    expect(later).toMatchObject({ text: '回答2', cached: true });
  });

  it('does not cache an empty completion', async () => {
    const s = await server({ faults: script('empty') });
    const file = cacheFile();
    expect((await generator(s.url, { cache: file, retries: 0 }).gen.generate(question)).text).toBe('');
    expect((await generator(s.url, { cache: file }).gen.generate(question)).cached).toBeUndefined();
    expect(s.chatRequests()).toHaveLength(2);
  });
});

describe('openai generator under injected faults', () => {
  it('answers every request or fails it with a reason, at a 30% fault rate', async () => {
    const s = await server({
      faults: { rate: 0.3, kinds: ['429', '500', 'timeout', 'malformed', 'empty', 'reset'], seed: 11, retryAfterSeconds: 0.01 },
    });
    const gen = new OpenAIGenerator(
      OpenAIParamsSchema.parse({ baseURL: s.url, model: 'test-model', retries: 4, retryBaseMs: 5, timeoutMs: 250, concurrency: 8 }),
    );
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        gen.generate([{ role: 'user', content: `问题${i}` }]).then(
          (r) => (r.text === '' ? 'empty' : 'answered'),
          (e: unknown) => (e instanceof GenerationError ? `failed:${e.reason}` : `unexpected:${String(e)}`),
        ),
      ),
    );
    expect(outcomes.filter((o) => o.startsWith('unexpected'))).toEqual([]);
    expect(outcomes.filter((o) => o === 'answered').length).toBeGreaterThan(25);
    // Empty completions were injected and retried: none reached the caller as an answer.
    expect(s.chatRequests().some((r) => r.fault === 'empty')).toBe(true);
    expect(outcomes.filter((o) => o === 'empty')).toEqual([]);
    expect(s.chatRequests().some((r) => r.fault)).toBe(true);
    expect(gen.stats.retries).toBeGreaterThan(0);
  });
});

describe('an endpoint that is not there', () => {
  it('is declared unavailable after failing every request for unavailableAfterMs, naming the endpoint', async () => {
    // Port 9 (discard) has nothing listening here: every connection is refused.
    const url = 'http://127.0.0.1:9/v1';
    const gen = new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: url, model: 'test-model', retries: 50, retryBaseMs: 20, retryMaxMs: 40, unavailableAfterMs: 300 }));
    const started = Date.now();
    const error = await gen.generate(question).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as Error).message).toContain(url);
    expect((error as Error).message).toMatch(/every request for \d+ s failed/);
    // Stopped by the breaker, long before 50 retries' worth of backoff.
    expect(Date.now() - started).toBeLessThan(20_000);
    // Later calls fail at once, without a request.
    const again = await gen.generate(question).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ServiceUnavailableError);
  });

  it('is declared unavailable after three refusals in a row (401)', async () => {
    const s = await server({ requireKey: 'sk-right' });
    const gen = new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: s.url, model: 'test-model', apiKeyEnv: 'K' }), { env: { K: 'sk-wrong' } });
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await gen.generate(question).catch((e: unknown) => e));
    expect(outcomes.slice(0, 2).every((e) => e instanceof GenerationError && e.reason === 'auth')).toBe(true);
    expect(outcomes[2]).toBeInstanceOf(ServiceUnavailableError);
    expect((outcomes[2] as Error).message).toMatch(/3 requests in a row were refused/);
    expect(s.chatRequests()).toHaveLength(3);
  });

  it('is never declared unavailable by sporadic faults', async () => {
    const s = await server({ faults: { rate: 0.3, kinds: ['500', 'reset', 'timeout'], seed: 5 } });
    const gen = new OpenAIGenerator(
      OpenAIParamsSchema.parse({ baseURL: s.url, model: 'test-model', retries: 4, retryBaseMs: 5, timeoutMs: 250, unavailableAfterMs: 2000 }),
    );
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) => gen.generate([{ role: 'user', content: `问${i}` }]).then(() => 'ok', (e: unknown) => (e as Error).name)),
    );
    expect(outcomes.filter((o) => o === 'ServiceUnavailableError')).toEqual([]);
  });
});
