import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { BenchmarkItem } from '../../src/benchmarks/types.js';
import { validateExperimentConfig } from '../../src/config/load.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import type { GenerationResult, Generator } from '../../src/generation/types.js';
import { MethodRun } from '../../src/methods/methodRun.js';
import { MethodStepError } from '../../src/methods/stepError.js';
import { estimateTokens } from '../../src/text/tokenCounter.js';
import { retrievers } from '../../src/retrieval/registry.js';
import type { RetrievalQuery, RetrievedChunk } from '../../src/retrieval/types.js';
import { startOpenAIServer, type ChatRequestBody, type OpenAIServer } from '../helpers/openaiServer.js';
import { REPO_ROOT } from '../helpers/runCli.js';

const K = 6;
/** The grade each passage carries (in its text), by rank: the first question's retrieval is Incorrect, the second's Correct. */
const GRADES: Record<string, number[]> = { odd: [1, 0, 2, 1, 0, 2], even: [2, 9, 4, 0, 7, 1] };
const gradesFor = (itemId: string | undefined) => GRADES[/[13579]$/.test(itemId ?? '') ? 'odd' : 'even']!;

function primaryList(query: RetrievalQuery, k: number): RetrievedChunk[] {
  return gradesFor(query.itemId)
    .slice(0, k)
    .map((grade, i) => ({ id: `p${i + 1}`, docId: `d${i + 1}`, title: `资料${i + 1}`, text: `第${i + 1}条资料。评分${grade}。`, score: 1 - i / 10, rank: i + 1, meta: {} }));
}

retrievers.register({
  name: 'test-crag-primary',
  description: 'test retriever: six passages, each naming the grade the test model gives it',
  params: z.strictObject({}),
  create: () => ({
    name: 'test-crag-primary',
    retrieve: async (query: RetrievalQuery, k: number) => primaryList(query, k),
    // CRAG's knowledge refinement scores strips by the retriever's relevance.
    relevance: async (_query: string, texts: string[]) => texts.map((t) => t.length),
    describe: () => ({ name: 'test-crag-primary' }),
    close: async () => {},
  }),
});

// The test retrievers leave with this file (a fork that runs several files shares the registries).
afterAll(() => void retrievers.unregister('test-crag-primary').unregister('test-crag-fallback'));

/** CRAG's fallback retriever as the test observes it: how often it was opened, searched and closed. */
const fallbackState = { opened: 0, closed: 0, searches: 0 };
retrievers.register({
  name: 'test-crag-fallback',
  description: 'test retriever whose opening and closing are counted',
  params: z.strictObject({}),
  create: () => {
    fallbackState.opened++;
    return {
      name: 'test-crag-fallback',
      retrieve: async (_query: RetrievalQuery, k: number) => {
        fallbackState.searches++;
        return Array.from({ length: Math.min(k, 2) }, (_, i) => ({ id: `f${i + 1}`, docId: `f${i + 1}`, title: `外部${i + 1}`, text: `外部资料${i + 1}。`, score: 1, rank: i + 1, meta: {} }));
      },
      describe: () => ({ name: 'test-crag-fallback' }),
      close: async () => {
        fallbackState.closed++;
      },
    };
  },
});

const isGrade = (prompt: string) => prompt.includes('请判断这条资料与问题的相关程度');

describe('CRAG grades the k passages at once and closes its fallback retriever', () => {
  let server: OpenAIServer;
  /** Grade requests in flight at the server, the most seen at once, and the passages in the order their replies went out. */
  const flight = { now: 0, most: 0, replied: [] as number[] };
  let onAnswer: () => void = () => {};
  let dir: string;

  beforeAll(async () => {
    server = await startOpenAIServer({
      respond: async (request: ChatRequestBody) => {
        const prompt = request.messages.map((m) => m.content).join('\n');
        if (!isGrade(prompt)) {
          onAnswer();
          return '殿试由皇帝主持。';
        }
        const passage = Number(/第(\d+)条资料/.exec(prompt)![1]);
        flight.now++;
        flight.most = Math.max(flight.most, flight.now);
        // The first passage's grade comes back last: replies arrive in the reverse of passage order.
        await new Promise((r) => setTimeout(r, (K + 1 - passage) * 25));
        flight.now--;
        flight.replied.push(passage);
        return /评分(\d+)/.exec(prompt)![1]!;
      },
    });
    dir = mkdtempSync(join(tmpdir(), 'hisrag-crag-concurrency-'));
  });

  afterAll(async () => {
    await server?.close();
  });

  beforeEach(() => {
    Object.assign(fallbackState, { opened: 0, closed: 0, searches: 0 });
    Object.assign(flight, { now: 0, most: 0, replied: [] });
    onAnswer = () => {};
  });

  const config = (runId: string) =>
    validateExperimentConfig(
      {
        name: `crag-${runId}`,
        output: join(dir, 'runs'),
        benchmark: { name: 'prohist', file: join(REPO_ROOT, 'experiments/data/demo-prohist.json'), limit: 2 },
        retrieval: { retriever: { name: 'test-crag-primary' }, k: [K] },
        strategies: [{ name: 'crag', upper: 0.6, lower: 0.3, fallback: { name: 'test-crag-fallback' } }],
        models: [{ name: 'openai', baseURL: server.url, model: 'grader', label: 'grader', retries: 0, timeoutMs: 5000, concurrency: 8 }],
        judge: { name: 'lexical' },
        scoring: { bootstrapResamples: 50 },
        // One question at a time: every request in flight together is one question's grades.
        execution: { concurrency: 1 },
      },
      'crag.yaml',
    );

  it('asks every grade at once, traces them in passage order whatever order the replies come in, and reads each grade for its own passage', async () => {
    const result = await runExperiment({ config: config('live'), runId: 'live' });
    expect(flight.most).toBe(K);
    expect(flight.replied.slice(0, K)).toEqual([6, 5, 4, 3, 2, 1]);
    const records: RunItemRecord[] = await readRunRecords(result.runDir);
    expect(records).toHaveLength(2);
    const labels = new Set<string>();
    for (const r of records) {
      expect(r.score.status, r.key).toBe('scored');
      expect(r.trace.map((s) => s.step)).toEqual(r.trace.map((_, i) => i + 1));
      expect(r.trace.slice(0, K + 2).map((s) => s.label)).toEqual(['retrieve', ...Array.from({ length: K }, (_, i) => `grade[${i + 1}]`), 'retrieval']);
      const expected = gradesFor(r.itemId);
      // Each grade step holds its own passage's prompt and reply.
      for (const [i, step] of r.trace.slice(1, K + 1).entries()) {
        expect(step.messages!.map((m) => m.content).join('\n')).toContain(`第${i + 1}条资料`);
        expect(step.response).toBe(String(expected[i]));
      }
      const evaluation = r.trace.find((s) => s.kind === 'evaluate')!.detail!;
      expect(evaluation.grades).toBe(expected.map((g) => (g / 10).toFixed(1)).join(','));
      labels.add(String(evaluation.label));
      // Every call is counted once: k grades and the answer.
      expect(r.cost!.generationCalls).toBe(K + 1);
      expect(r.cost!.promptTokens).toBe(r.trace.reduce((n, s) => n + (s.usage?.promptTokens ?? 0), 0));
    }
    expect([...labels].sort()).toEqual(['correct', 'incorrect']);
    // The Incorrect question searched the fallback, which the run opened once and closed at its end.
    expect(fallbackState.searches).toBe(1);
    expect(fallbackState.opened).toBe(1);
    expect(fallbackState.closed).toBe(1);
  }, 60_000);

  it('closes the fallback retriever also when the run is interrupted', async () => {
    const controller = new AbortController();
    // Stopped as the first question's answer is asked for: after its grades, before any record.
    onAnswer = () => controller.abort();
    const outcome = await runExperiment({ config: config('stopped'), runId: 'stopped', signal: controller.signal }).catch((error: unknown) => error);
    expect(controller.signal.aborted).toBe(true);
    expect(outcome instanceof Error ? outcome.message : (outcome as { interrupted: boolean }).interrupted).toBeTruthy();
    expect(fallbackState.opened).toBe(1);
    expect(fallbackState.closed).toBe(1);
  }, 60_000);
});

describe('the method context with steps asked at once', () => {
  const item: BenchmarkItem = { id: 'q1', benchmark: 'prohist', kind: 'rubric', question: '殿试由谁主持？', category: '名词解释', meta: {} };
  /** A generator whose replies come back in the reverse of the order asked (the label's number sets the delay); `fail` labels reject. */
  const generator = (fail: Set<string> = new Set()): Generator => ({
    name: 'reversed',
    model: 'reversed',
    async generate(messages): Promise<GenerationResult> {
      const label = String(messages[0]!.content);
      const n = Number(/\d+/.exec(label)![0]);
      await new Promise((r) => setTimeout(r, (5 - n) * 15));
      if (fail.has(label)) throw new Error(`no reply to ${label}`);
      return { text: `reply ${n}`, raw: `reply ${n}`, usage: { promptTokens: 10 * n, completionTokens: n } };
    },
    describe: () => ({ name: 'reversed' }),
  });
  const ask = (run: MethodRun) => [1, 2, 3, 4].map((n) => run.generate(`step[${n}]`, [{ role: 'user', content: `step[${n}]` }]));

  it('records the steps in the order they were asked, numbered 1…n, each with its own reply and usage', async () => {
    const run = new MethodRun({ item, k: 0, generator: generator(), countTokens: estimateTokens });
    const replies = await Promise.all(ask(run));
    run.record('after', 'grades', { n: 4 });
    expect(replies.map((r) => r.text)).toEqual(['reply 1', 'reply 2', 'reply 3', 'reply 4']);
    expect(run.trace.map((s) => [s.step, s.label, s.response])).toEqual([
      [1, 'step[1]', 'reply 1'],
      [2, 'step[2]', 'reply 2'],
      [3, 'step[3]', 'reply 3'],
      [4, 'step[4]', 'reply 4'],
      [5, 'grades', undefined],
    ]);
    expect(run.trace.slice(0, 4).map((s) => s.usage)).toEqual([1, 2, 3, 4].map((n) => ({ promptTokens: 10 * n, completionTokens: n })));
    expect(run.cost()).toMatchObject({ generationCalls: 4, promptTokens: 100, completionTokens: 10 });
  });

  it('a failed step takes its own place: every call is traced and counted, and its error names its step', async () => {
    const run = new MethodRun({ item, k: 0, generator: generator(new Set(['step[2]'])), countTokens: estimateTokens });
    const settled = await Promise.allSettled(ask(run));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const error = (settled[1] as PromiseRejectedResult).reason;
    expect(error).toBeInstanceOf(MethodStepError);
    expect((error as MethodStepError).step).toBe(2);
    expect((error as Error).message).toMatch(/step 2 \(generate "step\[2\]"\) failed: no reply to step\[2\]/);
    expect(run.trace.map((s) => [s.step, s.label, s.error])).toEqual([
      [1, 'step[1]', undefined],
      [2, 'step[2]', 'no reply to step[2]'],
      [3, 'step[3]', undefined],
      [4, 'step[4]', undefined],
    ]);
    expect(run.cost()).toMatchObject({ generationCalls: 4, promptTokens: 80 });
  });
});
