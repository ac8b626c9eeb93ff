import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchmarkItem } from '../../../src/benchmarks/types.js';
import { extractors } from '../../../src/scoring/extractors/registry.js';
import { judges } from '../../../src/scoring/judges/registry.js';
import { scoreItem } from '../../../src/scoring/scoreItem.js';

/** A 127.0.0.1 chat-completions server that replays scripted contents in order. */
function chatServer(contents: string[]) {
  const requests: Array<{ model: string; messages: Array<{ role: string; content: string }> }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const request = JSON.parse(body);
      requests.push(request);
      const content = contents[Math.min(requests.length - 1, contents.length - 1)];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `c${requests.length}`,
          object: 'chat.completion',
          created: 0,
          model: request.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  return { server, requests };
}

const item: BenchmarkItem = {
  id: 'p1',
  benchmark: 'prohist',
  kind: 'rubric',
  question: '简述科举制度的起源。',
  category: '简答题',
  rubrics: '加分项：\n1、指出科举始于隋朝{+6}\n2、说明殿试{+4}',
  meta: {},
};

describe('LLM judge and extractor through an OpenAI-compatible endpoint', () => {
  let harness: ReturnType<typeof chatServer>;
  let baseURL: string;
  const listen = async (contents: string[]) => {
    harness = chatServer(contents);
    await new Promise<void>((resolve) => harness.server.listen(0, '127.0.0.1', resolve));
    baseURL = `http://127.0.0.1:${(harness.server.address() as AddressInfo).port}/v1`;
  };
  const close = () => new Promise<void>((resolve) => (harness.server as Server).close(() => resolve()));

  describe('judge', () => {
    beforeAll(() => listen(['我觉得不错', '<think>逐条看</think>加分项_1: 1\n加分项_2: 0']));
    afterAll(close);

    it('retries an unparseable verdict and scores the next one', async () => {
      const judge = await judges.create({ name: 'llm', generator: { name: 'openai', baseURL, model: 'judge-model', retries: 0 } }, undefined);
      const result = await scoreItem(item, '科举始于隋朝。', { judge });
      expect(result).toMatchObject({ status: 'scored', score: 60, verdicts: { 加分项_1: 1, 加分项_2: 0 } });
      expect(harness.requests).toHaveLength(2);
      expect(harness.requests[0]!.model).toBe('judge-model');
      expect(harness.requests[0]!.messages.at(-1)!.content).toContain('加分项_2: 0或1');
    });
  });

  describe('extractor', () => {
    beforeAll(() => listen(['三万二千四百五十']));
    afterAll(close);

    it('extracts an integer answer', async () => {
      const extractor = await extractors.create({ name: 'llm', generator: { name: 'openai', baseURL, model: 'extract-model', retries: 0 } }, undefined);
      const longhisdoc: BenchmarkItem = {
        id: 'l1',
        benchmark: 'longhisdoc',
        kind: 'longhisdoc',
        question: '多少人？',
        category: 'Single Page',
        answerType: 'Int',
        answer: ['32450', '三万二千四百五十'],
        meta: {},
      };
      expect(await scoreItem(longhisdoc, '大约有三万二千四百五十人参加。', { extractor })).toMatchObject({ score: 100, extracted: '32450' });
    });
  });
});
