import { OpenAIEmbeddings } from '@langchain/openai';
import { describe, expect, it } from 'vitest';
import { serverPerTest } from '../helpers/serverPerTest.js';

const server = serverPerTest({ keepCaches: true });

async function chat(url: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'q' }], ...body }),
  });
}

describe('local OpenAI-compatible test server', () => {
  it('listens on 127.0.0.1 and lists its models', async () => {
    const s = await server({ models: ['a', 'b'] });
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const list = (await (await fetch(`${s.url}/models`)).json()) as { data: { id: string }[] };
    expect(list.data.map((m) => m.id)).toEqual(['a', 'b']);
  });

  it('streams a completion as server-sent events when asked', async () => {
    const s = await server({ respond: () => '北宋熙宁二年开始变法' });
    const text = await (await chat(s.url, { stream: true })).text();
    const deltas = text
      .split('\n\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { choices: { delta: { content?: string } }[] });
    expect(deltas.map((d) => d.choices[0]?.delta.content ?? '').join('')).toBe('北宋熙宁二年开始变法');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('serves embeddings in base64 float32 that the OpenAI client decodes', async () => {
    const vectors = [
      [0.25, -0.5, 1.5],
      [1, 2, 3],
    ];
    const s = await server({ embeddings: () => vectors });
    const client = new OpenAIEmbeddings({ model: 'e', apiKey: 'x', configuration: { baseURL: s.url }, maxRetries: 0 });
    expect(await client.embedDocuments(['甲', '乙'])).toEqual(vectors);
    expect(s.requests.find((r) => r.path === '/v1/embeddings')!.body).toMatchObject({ encoding_format: 'base64' });
  });

  it('serves embeddings as float arrays when asked for floats', async () => {
    const s = await server({ embeddings: (texts) => texts.map(() => [0.5, 0.25]) });
    const response = await fetch(`${s.url}/embeddings`, {
      method: 'POST',
      body: JSON.stringify({ model: 'e', input: ['a'], encoding_format: 'float' }),
    });
    expect(((await response.json()) as { data: { embedding: number[] }[] }).data[0]!.embedding).toEqual([0.5, 0.25]);
  });

  it('sends Retry-After with a 429', async () => {
    const s = await server({ faults: { rate: 1, kinds: ['429'], seed: 3, retryAfterSeconds: 2 } });
    const response = await chat(s.url, {});
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('2');
  });

  it('injects the same faults for the same seed and requests, whatever the arrival order', async () => {
    const faults = { rate: 0.5, kinds: ['429', '500', 'empty'] as const, seed: 42 };
    const bodies = Array.from({ length: 24 }, (_, i) => ({ messages: [{ role: 'user', content: `q${i}` }] }));
    const run = async (order: number[]) => {
      const s = await server({ faults: { ...faults, kinds: [...faults.kinds] } });
      for (const i of order) await chat(s.url, bodies[i]!);
      const byBody = new Map(s.chatRequests().map((r) => [JSON.stringify(r.body), r.fault ?? 'none']));
      return bodies.map((b) => byBody.get(JSON.stringify({ model: 'm', ...b })));
    };
    const forward = await run(bodies.map((_, i) => i));
    const backward = await run(bodies.map((_, i) => bodies.length - 1 - i));
    expect(backward).toEqual(forward);
    expect(new Set(forward).size).toBeGreaterThan(1);
  });

  it('injects faults at about the configured rate', async () => {
    const s = await server({ faults: { rate: 0.3, kinds: ['500'], seed: 7 } });
    for (let i = 0; i < 200; i++) await chat(s.url, { messages: [{ role: 'user', content: `q${i}` }] });
    const faulty = s.chatRequests().filter((r) => r.fault).length;
    expect(faulty).toBeGreaterThan(35);
    expect(faulty).toBeLessThan(85);
  });
});
