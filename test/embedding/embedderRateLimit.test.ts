import { afterAll, describe, expect, it } from 'vitest';
import { OpenAIEmbedder } from '../../src/embedding/openaiEmbedder.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';

describe('the openai embedder with rateLimit', () => {
  const servers: OpenAIServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('paces its requests evenly over the pool (600 a minute: 12 requests over more than a second), whatever the concurrency', async () => {
    const arrivals: number[] = [];
    const embeddings = (texts: string[]) => {
      arrivals.push(Date.now());
      return texts.map((t) => [t.length, 1, 0, 0]);
    };
    const [a, b] = [await startOpenAIServer({ embeddings }), await startOpenAIServer({ embeddings })];
    servers.push(a, b);
    const embedder = new OpenAIEmbedder({ baseURL: [a.url, b.url], model: 'm', dimension: 4, batchSize: 2, maxConcurrency: 8, rateLimit: { requestsPerMinute: 600 } });
    const texts = Array.from({ length: 24 }, (_, i) => `第${i}段`);
    const vectors = await embedder.embedDocuments(texts);
    expect(vectors).toHaveLength(24);
    expect(arrivals).toHaveLength(12);
    arrivals.sort((x, y) => x - y);
    // Paced 5% under the limit: 600/min is one request per 105 ms, so 12 requests span 11 × 105 ms; a
    // burst would arrive within a few ms. (The span, not each gap: arrivals jitter on a loaded machine.)
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThanOrEqual(900);
    expect(a.requests.length).toBeGreaterThan(0);
    expect(b.requests.length).toBeGreaterThan(0);
  });
});
