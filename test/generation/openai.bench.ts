import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, bench, describe } from 'vitest';
import { OpenAIGenerator, OpenAIParamsSchema } from '../../src/generation/openai.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';

// Client overhead per request against the local server (no model time): what the runner
// spends per generation besides the model, and what a cache hit costs.
let server: OpenAIServer;
let live: OpenAIGenerator;
let cached: OpenAIGenerator;
const prompt = [{ role: 'user' as const, content: '【问题】王安石变法始于哪一年？' }];
let n = 0;

beforeAll(async () => {
  server = await startOpenAIServer();
  live = new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: server.url, model: 'm', concurrency: 8 }));
  const cache = join(mkdtempSync(join(tmpdir(), 'hisrag-bench-')), 'cache.sqlite');
  cached = new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: server.url, model: 'm', cache }));
  await cached.generate(prompt);
});
afterAll(() => server.close());

describe('openai generator', () => {
  bench('8 concurrent requests to the local server', async () => {
    await Promise.all(Array.from({ length: 8 }, () => live.generate([{ role: 'user', content: `问题${n++}` }])));
  });
  bench('cache hit', async () => {
    await cached.generate(prompt);
  });
});
