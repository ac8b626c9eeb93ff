import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryFixtureModel } from './fixtureModelDir.js';
import { TransformersEmbedder } from '../../src/embedding/transformersEmbedder.js';
import { OpenAIEmbedder } from '../../src/embedding/openaiEmbedder.js';
import { startEmbeddingServer, type EmbeddingServer } from '../../src/embedding/embeddingServer.js';
import { BGE_QUERY_PREFIX } from '../../src/embedding/transformersParams.js';
import { ConfigError } from '../../src/errors.js';

const maxDifference = (a: number[][], b: number[][]) => Math.max(...a.flatMap((row, i) => row.map((x, j) => Math.abs(x - b[i]![j]!))));

describe('hisrag embeddings server with the openai embedder as client', () => {
  let fixture: Awaited<ReturnType<typeof temporaryFixtureModel>>;
  let local: TransformersEmbedder;
  let server: EmbeddingServer;
  const texts = ['秦始皇统一六国', '汉武帝\n北击匈奴', '唐', 'Song dynasty 宋朝'];

  beforeAll(async () => {
    fixture = await temporaryFixtureModel({ dim: 16 });
    local = new TransformersEmbedder({ model: fixture.dir });
    server = await startEmbeddingServer({ embedder: local, modelName: 'fixture' });
  });
  afterAll(async () => {
    await server.close();
    await local.dispose();
    await fixture.remove();
  });

  const client = (extra: Partial<ConstructorParameters<typeof OpenAIEmbedder>[0]> = {}) =>
    new OpenAIEmbedder({ baseURL: server.url, model: 'fixture', batchSize: 3, maxRetries: 0, ...extra });

  it('serves vectors equal to the local ones through the SDK default (base64) encoding', async () => {
    const remote = await client().embedDocuments(texts);
    expect(maxDifference(remote, await local.embedDocuments(texts))).toBeLessThan(1e-6);
  });

  it('serves vectors equal to the local ones as float arrays', async () => {
    const remote = await client({ encodingFormat: 'float' }).embedDocuments(texts);
    expect(maxDifference(remote, await local.embedDocuments(texts))).toBeLessThan(1e-6);
  });

  it('applies the query prefix on the client side', async () => {
    const remote = await client({ queryPrefix: BGE_QUERY_PREFIX }).embedQuery('汉武帝');
    expect(maxDifference([remote], [await local.embedQuery('汉武帝')])).toBeLessThan(1e-6);
  });

  it('states an identity naming the server and model, with the probed dimension; pooling unstated is recorded as the server\'s', async () => {
    expect(await client().identity()).toEqual({
      model: `${server.url}#fixture`,
      dimension: 16,
      pooling: 'server',
      normalize: true,
      queryPrefix: '',
      documentPrefix: '',
    });
  });

  it('counts prompt tokens in usage and lists the model', async () => {
    const response = await fetch(`${server.url}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: '秦始皇', model: 'fixture' }),
    });
    const body = (await response.json()) as { usage: unknown; data: Array<{ embedding: number[] }> };
    expect(body.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
    expect(body.data[0]?.embedding).toHaveLength(16);
    const models = (await (await fetch(`${server.url}/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toEqual(['fixture']);
  });

  it('answers a bad request with 400 and an OpenAI-style error', async () => {
    const response = await fetch(`${server.url}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: [[1, 2, 3]] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
  });

  it('answers an unknown model with 404', async () => {
    await expect(client({ model: 'other' }).embedDocuments(['秦'])).rejects.toThrow(/not served here/);
  });

  it('requires the named API key variable to be set', () => {
    expect(() => new OpenAIEmbedder({ baseURL: server.url, model: 'fixture', apiKeyEnv: 'HISRAG_TEST_UNSET_KEY' }, {})).toThrow(ConfigError);
  });
});

describe('openai embedder against a flaky server', () => {
  it('retries a failed request and then succeeds', async () => {
    const { createServer } = await import('node:http');
    let calls = 0;
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        calls += 1;
        response.setHeader('content-type', 'application/json');
        if (calls === 1) {
          response.statusCode = 503;
          response.end(JSON.stringify({ error: { message: 'busy', type: 'server_error' } }));
        } else {
          response.end(JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.6, 0.8] }], usage: { prompt_tokens: 1, total_tokens: 1 } }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const embedder = new OpenAIEmbedder({ baseURL: `http://127.0.0.1:${port}/v1`, model: 'm', maxRetries: 2, encodingFormat: 'float' });
      expect(await embedder.embedDocuments(['秦'])).toEqual([[0.6, 0.8]]);
      expect(calls).toBe(2);
    } finally {
      server.close();
    }
  });
});
