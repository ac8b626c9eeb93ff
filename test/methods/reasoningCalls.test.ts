import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIGenerator, OpenAIParamsSchema } from '../../src/generation/openai.js';
import { closeResponseCaches } from '../../src/generation/responseCache.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';

/** The generation calls these methods make: stop sequences, logprobs, reasoning apart, the completions API — and the cache keeps them apart. */
describe('per-call settings and the completions API through the openai generator', () => {
  let server: OpenAIServer;
  beforeAll(async () => {
    server = await startOpenAIServer({
      respond: (request) =>
        request.logprobs
          ? { content: '科举始于隋。', logprobs: [{ token: '科举', logprob: -0.05 }, { token: '始于', logprob: -2.5 }, { token: '隋', logprob: -0.1 }, { token: '。', logprob: -0.01 }] }
          : { content: '答案在此', reasoning_content: '先想一想<search>科举</search>之后的推理' },
      complete: (request) => `${request.prompt.length % 2 === 0 ? '偶' : '奇'}<|end_search_query|>后文`,
    });
  });
  afterAll(async () => {
    await server?.close();
    closeResponseCaches();
  });

  it('honours stop inside reasoning_content, returns logprobs, continues text; each cached under its own key', async () => {
    const cache = join(mkdtempSync(join(tmpdir(), 'hisrag-calls-')), 'cache.sqlite');
    const generator = new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: server.url, model: 'm', cache, retries: 0 }));
    const messages = [{ role: 'user' as const, content: '科举始于何时？' }];
    const plain = await generator.generate(messages);
    const stopped = await generator.generate(messages, { call: { stop: ['</search>'] } });
    const withLogprobs = await generator.generate(messages, { call: { logprobs: true, maxTokens: 16 } });
    const completed = await generator.complete!('前文', { call: { stop: ['<|end_search_query|>'] } });
    expect(plain).toMatchObject({ text: '答案在此', reasoning: '先想一想<search>科举</search>之后的推理' });
    // The stop sequence ended the output inside the reasoning: nothing after it, no content.
    expect(stopped).toMatchObject({ text: '', raw: '', reasoning: '先想一想<search>科举', finishReason: 'stop' });
    expect(withLogprobs.logprobs).toEqual([{ token: '科举', logprob: -0.05 }, { token: '始于', logprob: -2.5 }, { token: '隋', logprob: -0.1 }, { token: '。', logprob: -0.01 }]);
    expect(completed).toMatchObject({ text: '偶', raw: '偶' });
    const bodies = server.requests.map((r) => r.body as Record<string, unknown>);
    expect(bodies[1]).toMatchObject({ stop: ['</search>'] });
    expect(bodies[2]).toMatchObject({ logprobs: true, top_logprobs: 1, max_tokens: 16 });
    expect(server.requests[3]!.path).toBe('/v1/completions');
    expect(bodies[3]).toMatchObject({ prompt: '前文', stop: ['<|end_search_query|>'] });

    // Asked again: every answer from the cache, logprobs included, no request sent.
    const sent = server.requests.length;
    const again = [
      await generator.generate(messages),
      await generator.generate(messages, { call: { stop: ['</search>'] } }),
      await generator.generate(messages, { call: { logprobs: true, maxTokens: 16 } }),
      await generator.complete!('前文', { call: { stop: ['<|end_search_query|>'] } }),
    ];
    expect(server.requests.length).toBe(sent);
    expect(again.every((r) => r.cached)).toBe(true);
    expect(again.map((r) => r.text)).toEqual([plain.text, stopped.text, withLogprobs.text, completed.text]);
    expect(again[2]!.logprobs).toEqual(withLogprobs.logprobs);
    // A different setting is a different request.
    await generator.generate(messages, { call: { logprobs: true, maxTokens: 17 } });
    expect(server.requests.length).toBe(sent + 1);
  });
});
