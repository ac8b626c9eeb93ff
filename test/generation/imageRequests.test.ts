import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerInBatches } from '../../src/batch/batchRounds.js';
import { ConfigError } from '../../src/errors.js';
import { ImagePreparer } from '../../src/generation/imagePreparation.js';
import { ImageSettingsSchema } from '../../src/generation/imageTokens.js';
import { OpenAIGenerator, OpenAIParamsSchema } from '../../src/generation/openai.js';
import { closeResponseCaches } from '../../src/generation/responseCache.js';
import type { ChatMessage, PageImageRef } from '../../src/prompting/types.js';
import { pageLikeScan } from '../../scripts/pageLikeScan.js';
import { contentParts, requestImageUrls, startOpenAIServer, type ChatRequestBody, type OpenAIServer } from '../helpers/openaiServer.js';
import { imagePrompt, writeScans } from './pageScanFiles.js';

const IMAGES = { maxPixels: 500_000, maxSide: 900, quality: 80, tokens: { formula: 'qwen-vl' } } as const;

/** The answer depends on every image's bytes and their order: equal answers mean equal images were sent. */
const imageResponder = (request: ChatRequestBody) => {
  const urls = requestImageUrls(request);
  return `见${urls.length}页：${createHash('sha256').update(urls.join('|')).digest('hex').slice(0, 12)}`;
};

describe('page images reach an OpenAI-compatible endpoint', () => {
  let dir: string;
  let pages: PageImageRef[];
  let prompts: ChatMessage[][];
  const servers: OpenAIServer[] = [];
  const serve = async (options: Parameters<typeof startOpenAIServer>[0] = {}) => {
    const server = await startOpenAIServer({ respond: imageResponder, ...options });
    servers.push(server);
    return server;
  };
  const generatorFor = (server: OpenAIServer, fields: Record<string, unknown> = {}) =>
    new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: server.url, model: 'qwen2.5-vl', retries: 1, retryBaseMs: 1, images: { ...IMAGES, cache: join(dir, 'images.sqlite') }, ...fields }));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-image-requests-'));
    pages = await writeScans(join(dir, 'scans'), '90001', [1, 2, 3, 4, 5, 6]);
    // Eight questions, each shown three pages in page order (overlapping windows).
    prompts = Array.from({ length: 8 }, (_, i) => imagePrompt(`第${i + 1}问：此書刻於何時？`, [0, 1, 2].map((d) => pages[(i + d) % 6]!).sort((a, b) => a.page - b.page)));
  }, 60_000);

  afterAll(async () => {
    closeResponseCaches();
    for (const server of servers) await server.close();
  });

  it('every request carries one image_url part per page, in page order after its header, each within maxPixels and maxSide', async () => {
    const server = await serve();
    const generator = generatorFor(server);
    await Promise.all(prompts.map((p) => generator.generate(p)));
    const preparer = new ImagePreparer(ImageSettingsSchema.parse({ ...IMAGES, cache: join(dir, 'images.sqlite') }));
    expect(server.chatRequests()).toHaveLength(prompts.length);
    for (const request of server.chatRequests()) {
      const body = request.body as ChatRequestBody;
      const parts = contentParts(body.messages.find((m) => m.role === 'user')!.content);
      const imageAt = parts.flatMap((part, i) => (part.type === 'image_url' ? [i] : []));
      expect(imageAt).toHaveLength(3);
      for (const at of imageAt) {
        const before = parts[at - 1]!;
        expect(before.type).toBe('text');
        const page = Number(/（第(\d+)页）\n$/.exec(before.type === 'text' ? before.text : '')![1]);
        const url = (parts[at] as { image_url: { url: string } }).image_url.url;
        expect(url.startsWith('data:image/jpeg;base64,')).toBe(true);
        const bytes = Buffer.from(url.slice('data:image/jpeg;base64,'.length), 'base64');
        const { width, height, format } = await sharp(bytes).metadata();
        expect(format).toBe('jpeg');
        expect(width! * height!).toBeLessThanOrEqual(IMAGES.maxPixels);
        expect(Math.max(width!, height!)).toBeLessThanOrEqual(IMAGES.maxSide);
        // The very image of the page its header names.
        expect(bytes.equals((await preparer.prepare(pages[page - 1]!)).bytes)).toBe(true);
      }
      const headerPages = imageAt.map((at) => Number(/（第(\d+)页）/.exec((parts[at - 1] as { text: string }).text)![1]));
      expect(headerPages).toEqual([...headerPages].sort((a, b) => a - b));
    }
  }, 60_000);

  it('a text-only prompt is sent and keyed exactly as before, image settings or not', async () => {
    const server = await serve({ respond: () => '好' });
    const text: ChatMessage[] = [{ role: 'user', content: '唐朝的都城在哪里？' }];
    const withImages = generatorFor(server);
    const plain = new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: server.url, model: 'qwen2.5-vl', retries: 1, retryBaseMs: 1 }));
    expect(withImages.cacheKey(text)).toBe(plain.cacheKey(text));
    await withImages.generate(text);
    await plain.generate(text);
    const [a, b] = server.chatRequests().map((r) => r.body);
    expect(a).toEqual(b);
    expect((a as ChatRequestBody).messages[0]!.content).toBe('唐朝的都城在哪里？');
  });

  it('a model without image settings refuses an image prompt before any call, naming the model and the setting to add', async () => {
    const server = await serve();
    const plain = new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: server.url, model: 'deepseek-chat', retries: 1 }));
    expect(plain.imageTokens).toBeUndefined();
    const refused = plain.generate(prompts[0]!);
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(/generator "deepseek-chat" \(openai\) was given a prompt with 3 page images.*add `images:` to its params/);
    expect(server.chatRequests()).toHaveLength(0);
  });

  it('the response cache key follows the images’ bytes, not their path', async () => {
    const server = await serve();
    const where = mkdtempSync(join(tmpdir(), 'hisrag-image-key-'));
    cpSync(join(dir, 'scans'), join(where, 'a'), { recursive: true });
    cpSync(join(dir, 'scans'), join(where, 'b'), { recursive: true });
    const at = (folder: string) => imagePrompt('此書刻於何時？', pages.slice(0, 2).map((p) => ({ ...p, imageDir: join(where, folder) })));
    const generator = generatorFor(server, { cache: join(where, 'responses.sqlite') });
    expect(generator.isCached(at('a'))).toBe(false);
    const first = await generator.generate(at('a'));
    // The same scans in another folder: the same request.
    expect(generator.isCached(at('b'))).toBe(true);
    expect(await generator.generate(at('b'))).toMatchObject({ text: first.text, cached: true });
    expect(server.chatRequests()).toHaveLength(1);
    // A page rescanned (other bytes, same size and path): asked again.
    await writeFile(join(where, 'b', '90001', 'page_2.jpg'), await pageLikeScan(1500, 2200, 777));
    expect(generator.isCached(at('b'))).toBe(false);
    const again = await generator.generate(at('b'));
    expect(again.cached).toBeUndefined();
    expect(again.text).not.toBe(first.text);
    expect(server.chatRequests()).toHaveLength(2);
  }, 60_000);

  it('with 30% of requests failing, the answers equal the fault-free ones', async () => {
    const clean = generatorFor(await serve());
    const expected = await Promise.all(prompts.map((p) => clean.generate(p)));
    const faulty = await serve({ faults: { rate: 0.3, kinds: ['429', '500', 'timeout', 'malformed', 'empty', 'reset'], seed: 5, retryAfterSeconds: 0.02 } });
    const generator = generatorFor(faulty, { retries: 8, retryBaseMs: 5, retryMaxMs: 20, timeoutMs: 1500 });
    const answers = await Promise.all(prompts.map((p) => generator.generate(p)));
    expect(faulty.requests.filter((r) => r.fault).length).toBeGreaterThan(0);
    expect(answers.map((a) => a.text)).toEqual(expected.map((a) => a.text));
    expect(answers.every((a) => a.text.startsWith('见3页'))).toBe(true);
  }, 60_000);

  it('batch mode sends the same image parts (files split at bytesPerFile) and gives the live answers', async () => {
    const live = generatorFor(await serve());
    const expected = await Promise.all(prompts.map((p) => live.generate(p)));
    const lineBytes = Buffer.byteLength(JSON.stringify(servers.at(-1)!.chatRequests()[0]!.body));
    const server = await serve();
    const runDir = mkdtempSync(join(tmpdir(), 'hisrag-image-batch-'));
    // Room for two lines a file: the image-laden lines must be split over several files.
    const bytesPerFile = Math.round(lineBytes * 2.6);
    const generator = generatorFor(server, { cache: join(runDir, 'responses.sqlite'), batch: { pollMs: 5, bytesPerFile } });
    const collect = async () => {
      await Promise.all(prompts.map((p) => generator.generate(p).catch(() => undefined)));
    };
    const rounds = await answerInBatches({ queues: [generator.batchQueue!], collect, runDir, log: () => {} });
    expect(rounds).toMatchObject({ submitted: 8, answered: 8, failed: 0 });
    expect(server.batches.length).toBeGreaterThanOrEqual(3);
    for (const file of readdirSync(join(runDir, 'batches')).filter((f) => /^r1-.*-\d+\.jsonl$/.test(f))) {
      const text = readFileSync(join(runDir, 'batches', file), 'utf8');
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(bytesPerFile);
      for (const line of text.trim().split('\n')) expect(requestImageUrls((JSON.parse(line) as { body: ChatRequestBody }).body)).toHaveLength(3);
    }
    const answers = await Promise.all(prompts.map((p) => generator.generate(p)));
    expect(server.chatRequests()).toHaveLength(0);
    expect(answers.every((a) => a.batched)).toBe(true);
    expect(answers.map((a) => a.text)).toEqual(expected.map((a) => a.text));
  }, 60_000);
});
