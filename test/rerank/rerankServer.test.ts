import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrossEncoderReranker } from '../../src/rerank/crossEncoderReranker.js';
import { createRemoteReranker, RemoteRerankerParamsSchema } from '../../src/rerank/remoteReranker.js';
import { CLI, REPO_ROOT } from '../helpers/runCli.js';
import { temporaryRerankerFixture } from './rerankerFixtureDir.js';

const QUERY = '隋朝开创的科举制度';
const PASSAGES = [
  '长城是古代的防御工程。',
  '科举制度始于隋朝，唐朝沿用并完善。',
  '宋代书院兴盛。',
  '隋文帝开创科举，以考试选拔官员。',
  '明清八股取士。',
  '今天天气很好',
  '制度',
];

const order = (scores: number[]) => scores.map((s, i) => [s, i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]).map(([, i]) => i);
const remote = (baseURL: string, extra: Record<string, unknown> = {}) =>
  createRemoteReranker(RemoteRerankerParamsSchema.parse({ baseURL, batchSize: 3, maxRetries: 0, ...extra }));

/** Starts `hisrag serve rerank` on a free port; resolves with its root URL once it says it serves. */
function serveCli(model: string): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', 'rerank', '--model', model, '--port', '0', '--served-name', 'fixture-reranker'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
      const found = stderr.match(/serving reranker \S+ at (http:\/\/\S+)/);
      if (found) resolve({ url: found[1]!, child });
    });
    child.on('exit', (code) => reject(new Error(`hisrag serve rerank exited (${code}): ${stderr}`)));
  });
}

describe('reranking in process and through `hisrag serve rerank`', () => {
  let fixture: Awaited<ReturnType<typeof temporaryRerankerFixture>>;
  let local: CrossEncoderReranker;
  let served: { url: string; child: ChildProcess };
  beforeAll(async () => {
    fixture = await temporaryRerankerFixture();
    local = new CrossEncoderReranker({ model: fixture.dir });
    served = await serveCli(fixture.dir);
  }, 60_000);
  afterAll(async () => {
    served?.child.kill('SIGTERM');
    await local.close();
    await fixture.remove();
  });

  it('gives the same order over the TEI /rerank protocol as in process', async () => {
    const inProcess = (await local.rerank(QUERY, PASSAGES)).scores;
    const viaServer = (await remote(served.url).rerank(QUERY, PASSAGES)).scores;
    expect(new Set(inProcess).size).toBe(PASSAGES.length); // distinct scores: the order is a real test
    expect(order(viaServer)).toEqual(order(inProcess));
    viaServer.forEach((s, i) => expect(s).toBeCloseTo(inProcess[i]!, 5));
  });

  it('gives the same order over the Jina/Cohere /v1/rerank protocol', async () => {
    const inProcess = (await local.rerank(QUERY, PASSAGES)).scores;
    const viaServer = (await remote(served.url, { protocol: 'v1', model: 'fixture-reranker' }).rerank(QUERY, PASSAGES)).scores;
    expect(order(viaServer)).toEqual(order(inProcess));
  });

  it('answers TEI requests best first, with logits when raw_scores is set', async () => {
    const post = async (body: unknown) => (await fetch(`${served.url}/rerank`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
    const ranked = (await post({ query: QUERY, texts: PASSAGES })) as { index: number; score: number }[];
    expect(ranked.map((r) => r.index)).toEqual(order((await local.rerank(QUERY, PASSAGES)).scores));
    const raw = (await post({ query: QUERY, texts: PASSAGES, raw_scores: true })) as { index: number; score: number }[];
    expect(raw[0]!.score).toBeCloseTo(Math.log(ranked[0]!.score / (1 - ranked[0]!.score)), 4);
  });

  it('refuses a request naming another model, and a malformed one, with 4xx', async () => {
    const wrongModel = await fetch(`${served.url}/v1/rerank`, { method: 'POST', body: JSON.stringify({ model: 'other', query: 'q', documents: ['d'] }) });
    expect(wrongModel.status).toBe(404);
    const noTexts = await fetch(`${served.url}/rerank`, { method: 'POST', body: JSON.stringify({ query: 'q', texts: [] }) });
    expect(noTexts.status).toBe(400);
    expect(((await noTexts.json()) as { error: string }).error).toMatch(/texts/);
  });
});

describe('the remote reranker client', () => {
  let server: Server;
  let url: string;
  let replies: Array<(body: { texts: string[] }) => [number, unknown]>;
  let calls = 0;
  beforeAll(async () => {
    server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const [status, reply] = replies[Math.min(calls++, replies.length - 1)]!(body);
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const ok = (body: { texts: string[] }): [number, unknown] => [200, body.texts.map((t, index) => ({ index, score: t.length / 100 }))];

  it('retries a failing server (503) and then succeeds', async () => {
    calls = 0;
    replies = [() => [503, { error: 'overloaded' }], ok];
    const scores = (await remote(url, { maxRetries: 2, retryDelayMs: 1 }).rerank('q', ['aa', 'a'])).scores;
    expect(scores).toEqual([0.02, 0.01]);
    expect(calls).toBe(2);
  });

  it('does not retry a request the server calls invalid (400) and names the server', async () => {
    calls = 0;
    replies = [() => [400, { error: 'bad' }], ok];
    await expect(remote(url, { maxRetries: 3, retryDelayMs: 1 }).rerank('q', ['a'])).rejects.toThrow(/rerank server .*\/rerank: HTTP 400/);
    expect(calls).toBe(1);
  });

  it('fails loudly on a reply that leaves a passage without a score', async () => {
    calls = 0;
    replies = [(body) => [200, body.texts.slice(1).map((_, i) => ({ index: i + 1, score: 0.5 }))]];
    await expect(remote(url).rerank('q', ['a', 'b'])).rejects.toThrow(/no score for passage 0 of 2/);
  });

  it('the v1 protocol needs a model name (config error)', () => {
    expect(RemoteRerankerParamsSchema.safeParse({ baseURL: url, protocol: 'v1' }).success).toBe(false);
  });
});
