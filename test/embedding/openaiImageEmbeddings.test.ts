import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CachedEmbedder } from '../../src/embedding/cachedEmbedder.js';
import { ClipEmbedder } from '../../src/embedding/clipEmbedder.js';
import { startEmbeddingServer, type EmbeddingServer } from '../../src/embedding/embeddingServer.js';
import { OpenAIEmbedder } from '../../src/embedding/openaiEmbedder.js';
import { isImageEmbedder } from '../../src/embedding/types.js';
import { generateClipFixture } from '../../src/models/fixture/clipFixture.js';
import type { PageImageRef } from '../../src/runFiles/pageImage.js';
import { BLUE, GREEN, PAPER, RED, writePageImages } from './pageImageFiles.js';

const maxDifference = (a: number[][], b: number[][]) => Math.max(...a.flatMap((row, i) => row.map((x, j) => Math.abs(x - b[i]![j]!))));

/**
 * A recording proxy in front of `hisrag serve embeddings`' server: it keeps every request body and
 * answers the first `failNext` requests with 503 (an outage the pool must ride out).
 */
async function startRecordingProxy(target: string) {
  const bodies: Record<string, unknown>[] = [];
  let failNext = 0;
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      if (req.method === 'POST') bodies.push(JSON.parse(raw.toString('utf8')));
      if (req.method === 'POST' && failNext > 0) {
        failNext--;
        res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'warming up' } }));
        return;
      }
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { 'content-type': 'application/json', 'content-length': raw.length } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.end(raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    bodies,
    failNextRequests: (n: number) => void (failNext = n),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('openai embedder: page images over vLLM-style chat embeddings', () => {
  let root: string;
  let local: ClipEmbedder;
  let server: EmbeddingServer;
  let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
  let pages: PageImageRef[];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'hisrag-openai-images-'));
    const model = (await generateClipFixture({ outDir: join(root, 'clip'), seed: 5 })).dir;
    local = new ClipEmbedder({ model });
    server = await startEmbeddingServer({ embedder: local, modelName: 'gme-stand-in' });
    proxy = await startRecordingProxy(server.url);
    pages = await writePageImages(join(root, 'images'), [
      { docId: 'd', page: 1, colour: RED },
      { docId: 'd', page: 2, colour: GREEN },
      { docId: 'd', page: 3, colour: BLUE },
      { docId: 'd', page: 4, colour: PAPER },
    ]);
  });
  beforeEach(() => {
    proxy.bodies.length = 0;
  });
  afterAll(async () => {
    await proxy.close();
    await server.close();
    await local.dispose();
    await rm(root, { recursive: true, force: true });
  });

  const client = (extra: Partial<ConstructorParameters<typeof OpenAIEmbedder>[0]> = {}) =>
    new OpenAIEmbedder({ baseURL: proxy.url, model: 'gme-stand-in', dimension: 64, maxRetries: 3, retryBaseMs: 5, retryMaxMs: 20, ...extra });

  it('sends one request per image: a user message with the image as a data URL and the configured prompt', async () => {
    const vectors = await client({ imagePrompt: '请描述这一页' }).embedImages(pages.slice(0, 2));
    expect(vectors).toHaveLength(2);
    expect(proxy.bodies).toHaveLength(2);
    for (const body of proxy.bodies) {
      expect(body).toMatchObject({ model: 'gme-stand-in', encoding_format: 'base64' });
      expect(body.input).toBeUndefined();
      const [message] = body.messages as { role: string; content: { type: string; image_url?: { url: string }; text?: string }[] }[];
      expect(message!.role).toBe('user');
      expect(message!.content.map((part) => part.type)).toEqual(['image_url', 'text']);
      expect(message!.content[0]!.image_url!.url).toMatch(/^data:image\/jpeg;base64,\/9j\//);
      expect(message!.content[1]!.text).toBe('请描述这一页');
    }
    // The images as they lie: the data URLs carry the files' bytes.
    const sent = proxy.bodies.map((b) => (b.messages as { content: { image_url?: { url: string } }[] }[])[0]!.content[0]!.image_url!.url);
    expect(new Set(sent).size).toBe(2);
  });

  it('gives the vectors the served model gives locally, text queries through the same server', async () => {
    const remote = client();
    expect(maxDifference(await remote.embedImages(pages), await local.embedImages(pages))).toBeLessThan(1e-6);
    expect(maxDifference([await remote.embedQuery('红')], [await local.embedQuery('红')])).toBeLessThan(1e-6);
  });

  it('scales a scan above maxPixels down before sending it', async () => {
    await client({ maxPixels: 1200 }).embedImages([pages[0]!]);
    const url = (proxy.bodies[0]!.messages as { content: { image_url?: { url: string } }[] }[])[0]!.content[0]!.image_url!.url;
    const { width = 0, height = 0 } = await sharp(Buffer.from(url.split(',')[1]!, 'base64')).metadata();
    expect(width * height).toBeLessThanOrEqual(1200);
    expect(width / height).toBeCloseTo(60 / 90, 1);
  });

  it('rides out an outage through the replica pool: retried requests give the same vectors', async () => {
    const expected = await local.embedImages(pages);
    proxy.failNextRequests(3);
    const vectors = await client({ maxConcurrency: 1 }).embedImages(pages);
    expect(proxy.bodies.length).toBe(pages.length + 3);
    expect(maxDifference(vectors, expected)).toBeLessThan(1e-6);
  });

  it('caches image vectors by the bytes: a second pass embeds nothing, the same bytes elsewhere are a hit', async () => {
    const cached = new CachedEmbedder(client(), join(root, 'cache.sqlite'), null);
    expect(isImageEmbedder(cached)).toBe(true);
    const first = await cached.embedImages!(pages);
    expect(proxy.bodies).toHaveLength(4);
    const moved = await writePageImages(join(root, 'moved'), [{ docId: 'x', page: 1, colour: RED }]);
    const second = await cached.embedImages!([...pages, ...moved]);
    expect(proxy.bodies).toHaveLength(4);
    expect(second.slice(0, 4)).toEqual(first);
    expect(cached.stats).toEqual({ hits: 5, misses: 4 });
    await cached.dispose();
  });

  it('a text-only embedder behind a cache is not an image embedder', async () => {
    const textOnly = { ...client(), embedImages: undefined } as unknown as OpenAIEmbedder;
    expect(isImageEmbedder(new CachedEmbedder(textOnly, join(root, 'text-cache.sqlite'), null))).toBe(false);
  });
});
