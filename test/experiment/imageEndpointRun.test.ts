import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImagePreparer } from '../../src/generation/imagePreparation.js';
import { imageTokensOf, ImageSettingsSchema } from '../../src/generation/imageTokens.js';
import { RunItemRecordSchema, type RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { contentParts, contentText, requestImageUrls, startOpenAIServer, type ChatRequestBody, type OpenAIServer } from '../helpers/openaiServer.js';
import { REPO_ROOT, runCli, summaryWithoutTiming } from '../helpers/runCli.js';

const SAMPLE = join(REPO_ROOT, 'corpora/sources/demo-longhisdoc');
const IMAGES = { maxPixels: 120_000, maxSide: 400, quality: 80, tokens: { formula: 'qwen-vl', maxPixels: 120_000 } } as const;
const ITEMS = 6;
const CONDITIONS = 3; // image-input, image+ocr-input, page-rag@3

/**
 * A stand-in VLM whose reply depends only on what it was shown: the text of the request and the
 * bytes of each image (so a page sent in another order, size or encoding changes the answer).
 */
function visionResponder(request: ChatRequestBody): string {
  const urls = requestImageUrls(request);
  const digest = createHash('sha256').update(urls.join('|')).digest();
  const user = request.messages.at(-1)!;
  const question = /【问题】([^\n]*)/.exec(contentText(user.content))?.[1] ?? '';
  return `看到${urls.length}页。${digest[0]! % 2 === 0 ? '无法回答' : question.slice(0, 6)}`;
}

function imageConfig(dir: string, baseURL: string, generator: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const config = {
    name: 'image-endpoint',
    seed: 11,
    output: join(dir, 'runs'),
    prepare: {
      corpora: [
        {
          name: 'pages',
          builder: { name: 'longhisdoc-ocr', input: join(SAMPLE, 'OCR_res'), imageDir: join(SAMPLE, 'LongHisDoc_IMG') },
          out: join(dir, 'corpus'),
          chunking: { maxSize: 4000, unit: 'chars' },
        },
      ],
      indexes: [{ out: join(dir, 'bm25'), corpus: join(dir, 'corpus'), retriever: 'bm25' }],
    },
    benchmark: { name: 'longhisdoc', file: join(SAMPLE, 'qa.json'), ocrDir: join(SAMPLE, 'OCR_res'), imageDir: join(SAMPLE, 'LongHisDoc_IMG'), limit: ITEMS },
    retrieval: { scope: 'document', retriever: { name: 'bm25', index: join(dir, 'bm25') } },
    strategies: [
      { name: 'longhisdoc-full', label: 'image-input', input: 'image', maxImages: 6 },
      { name: 'longhisdoc-full', label: 'image+ocr-input', input: 'image+text', maxImages: 6 },
      { name: 'page-rag', k: [3] },
    ],
    models: [{ name: 'openai', baseURL, model: 'stand-in-vlm', label: 'vlm', images: { ...IMAGES, cache: join(dir, 'page-images.sqlite') }, ...generator }],
    extractor: { name: 'rules' },
    scoring: { bootstrapResamples: 200, baseline: 'image-input' },
    execution: { concurrency: 3 },
    ...extra,
  };
  const file = join(dir, `config-${Object.keys(generator).join('-') || 'plain'}.yaml`);
  writeFileSync(file, stringify(config));
  return file;
}

const recordsOf = (runDir: string): RunItemRecord[] =>
  readFileSync(join(runDir, 'items.jsonl'), 'utf8').trim().split('\n').map((l) => RunItemRecordSchema.parse(JSON.parse(l)));
const summaryOf = (runDir: string) => summaryWithoutTiming(readFileSync(join(runDir, 'summary.json'), 'utf8'));
const lineCount = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).length : 0);

describe('an image-input run against a local OpenAI-compatible vision-language server', () => {
  let server: OpenAIServer;
  let dir: string;
  let plainRun: string;

  beforeAll(async () => {
    server = await startOpenAIServer({ respond: visionResponder });
    dir = mkdtempSync(join(tmpdir(), 'hisrag-image-endpoint-'));
    const result = await runCli(['run', imageConfig(dir, server.url, {}), '--run-id', 'plain', '--no-progress']);
    expect(result.stderr).not.toContain('internal error');
    expect(result.code, result.stderr).toBe(0);
    plainRun = join(dir, 'runs', 'plain');
  }, 240_000);

  afterAll(async () => {
    await server?.close();
  });

  it('sends every prompt\'s pages as image parts in page order, each within the pixel bound, and records their tokens by the formula', async () => {
    const records = recordsOf(plainRun);
    expect(records).toHaveLength(ITEMS * CONDITIONS);
    const settings = ImageSettingsSchema.parse(IMAGES);
    const preparer = new ImagePreparer({ ...settings, cache: join(dir, 'check-images.sqlite') });
    const requests = server.chatRequests().map((r) => r.body as ChatRequestBody);
    for (const record of records) {
      const images = record.prompt.flatMap((m) => m.images ?? []);
      expect(images.length).toBeGreaterThan(0);
      if (record.condition !== 'page-rag@3') expect(images.map((i) => i.page)).toEqual([...images.map((i) => i.page)].sort((a, b) => a - b));
      // The request whose text is this prompt's text (placeholders out) carries exactly these images, in order.
      const text = record.prompt.at(-1)!.content.replace(/［图像：\S+ 第\d+页］/g, '');
      const request = requests.find((r) => contentParts(r.messages.at(-1)!.content).filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join('') === text);
      expect(request, record.key).toBeDefined();
      const expected = await Promise.all(images.map(async (image) => ImagePreparer.dataUrl(await preparer.prepare(image))));
      expect(requestImageUrls(request!)).toEqual(expected);
      for (const url of requestImageUrls(request!)) {
        const meta = await sharp(Buffer.from(url.split(',')[1]!, 'base64')).metadata();
        expect(meta.width! * meta.height!).toBeLessThanOrEqual(IMAGES.maxPixels);
        expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(IMAGES.maxSide);
      }
      expect(record.cost?.images).toBe(images.length);
      expect(record.cost?.imageTokens).toBe(images.reduce((n, image) => n + imageTokensOf(image, settings), 0));
    }
  });

  it('gives the fault-free scores under 30% injected faults', async () => {
    const faulty = await startOpenAIServer({ respond: visionResponder, faults: { rate: 0.3, kinds: ['429', '500', 'reset', 'malformed'], seed: 3, retryAfterSeconds: 0.02 } });
    try {
      const result = await runCli(['run', imageConfig(dir, faulty.url, { retries: 12, retryBaseMs: 2, retryMaxMs: 10 }), '--run-id', 'faulty', '--no-progress']);
      expect(result.code, result.stderr).toBe(0);
      expect(faulty.requests.some((r) => r.fault)).toBe(true);
      expect(summaryOf(join(dir, 'runs', 'faulty'))).toEqual(summaryOf(plainRun));
    } finally {
      await faulty.close();
    }
  }, 240_000);

  it('gives the live scores through the batch API, with no live request', async () => {
    const batchServer = await startOpenAIServer({ respond: visionResponder });
    try {
      const result = await runCli(['run', imageConfig(dir, batchServer.url, { batch: { pollMs: 5 }, cache: join(dir, 'batch-responses.sqlite') }), '--run-id', 'batched', '--no-progress']);
      expect(result.code, result.stderr).toBe(0);
      expect(batchServer.chatRequests()).toHaveLength(0);
      expect(batchServer.batchLines.length).toBe(ITEMS * CONDITIONS);
      // The same scores and paired differences; only the cost says the calls were batched.
      const scores = (runDir: string) => {
        const summary = JSON.parse(summaryOf(runDir)) as { cells: { condition: string; score: unknown }[]; paired: unknown };
        return { cells: summary.cells.map((c) => ({ condition: c.condition, score: c.score })), paired: summary.paired };
      };
      expect(scores(join(dir, 'runs', 'batched'))).toEqual(scores(plainRun));
      expect(recordsOf(join(dir, 'runs', 'batched')).every((r) => r.cost?.batchedCalls === 1)).toBe(true);
    } finally {
      await batchServer.close();
    }
  }, 240_000);

  it('loses nothing to a kill -9 of the CLI process: --resume gives the uninterrupted summary, each answer once', async () => {
    const slow = await startOpenAIServer({
      respond: async (request) => {
        await new Promise((r) => setTimeout(r, 60));
        return visionResponder(request);
      },
    });
    try {
      const config = imageConfig(dir, slow.url, {}, { execution: { concurrency: 2 } });
      const runDir = join(dir, 'runs', 'killed');
      const items = join(runDir, 'items.jsonl');
      let killed = false;
      const first = await runCli(['run', config, '--run-id', 'killed', '--no-progress'], {
        onSpawn: (child) => {
          const timer = setInterval(() => {
            if (lineCount(items) >= 5) {
              clearInterval(timer);
              killed = child.kill('SIGKILL');
            }
          }, 5);
          child.on('exit', () => clearInterval(timer));
        },
      });
      expect(killed && first.signal === 'SIGKILL').toBe(true);
      expect(lineCount(items)).toBeLessThan(ITEMS * CONDITIONS);
      const resumed = await runCli(['run', '--resume', runDir, '--no-progress']);
      expect(resumed.code, resumed.stderr).toBe(0);
      const keys = recordsOf(runDir).map((r) => r.key);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys).toHaveLength(ITEMS * CONDITIONS);
      expect(summaryOf(runDir)).toEqual(summaryOf(plainRun));
    } finally {
      await slow.close();
    }
  }, 240_000);

  it('refuses a broken image folder before any model call: exit 2 naming the document and page', async () => {
    const server2 = await startOpenAIServer({ respond: visionResponder });
    try {
      const cases: [(folder: string) => void, RegExp][] = [
        [(folder) => rmSync(join(folder, '90002', 'page_4.jpg')), /missing.*90002 page 4/],
        [(folder) => truncateSync(join(folder, '90001', 'page_3.jpg'), 2000), /truncated.*90001 page 3/],
        [(folder) => copyFileSync(join(folder, '90001', 'page_1.jpg'), join(folder, '90001', 'page_11.jpg')), /90001.*page_11\.jpg|90001.*11 page images/],
      ];
      for (const [breakIt, named] of cases) {
        const folder = mkdtempSync(join(tmpdir(), 'hisrag-broken-images-'));
        cpSync(join(SAMPLE, 'LongHisDoc_IMG'), folder, { recursive: true });
        breakIt(folder);
        const config = imageConfig(mkdtempSync(join(tmpdir(), 'hisrag-broken-run-')), server2.url, {});
        writeFileSync(config, readFileSync(config, 'utf8').split(join(SAMPLE, 'LongHisDoc_IMG')).join(folder));
        const result = await runCli(['run', config, '--no-progress']);
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr).toMatch(named);
        expect(result.stderr).not.toContain('internal error');
      }
      expect(server2.chatRequests()).toHaveLength(0);
    } finally {
      await server2.close();
    }
  }, 240_000);
});
