import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import { closeResponseCaches } from '../../src/generation/responseCache.js';
import { startOpenAIServer, type ChatReply, type ChatRequestBody, type OpenAIServer } from '../helpers/openaiServer.js';
import { deterministicResponder, endpointExperimentConfig } from '../experiment/endpointFixtures.js';
import { runMethod } from './methodHarness.js';

let server: OpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  closeResponseCaches();
});

const isJudge = (request: ChatRequestBody) => request.messages.some((m) => /^(?:加分项|减分项)_\d+: 0或1$/m.test(m.content ?? ''));
const toolResults = (request: ChatRequestBody) => request.messages.filter((m) => m.role === 'tool');
const question = (request: ChatRequestBody) => /【问题】([^\n]+)/.exec(request.messages.find((m) => m.role === 'user')?.content ?? '')?.[1] ?? '';

/** A model that searches twice (the question, then a narrower query), then answers from the first passage it read. */
function searchingModel(request: ChatRequestBody): ChatReply {
  if (isJudge(request)) return deterministicResponder(request);
  const results = toolResults(request);
  if (request.tools?.some((t) => t.function.name === 'search') && results.length < 2) {
    return { content: null, tool_calls: [{ name: 'search', args: { query: results.length === 0 ? question(request) : `${question(request).slice(0, 6)} 史料` } }] };
  }
  const passage = /【资料1】[^\n]*\n([^\n]+)/.exec(results[0]?.content ?? '')?.[1] ?? '';
  return `根据检索：${passage.slice(0, 60)}`;
}

function agentConfig(dir: string, url: string, agent: Record<string, unknown> = {}, generator: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return endpointExperimentConfig(dir, url, { retries: 1, retryBaseMs: 2, retryMaxMs: 5, timeoutMs: 3000, ...generator }, {
    strategies: ['closed-book', { name: 'agent', maxSearches: 4, ...agent }],
    retrieval: { retriever: { name: 'hnsw', index: join(dir, 'index') }, k: [3] },
    ...extra,
  });
}

describe('the agent method against an OpenAI-compatible server with tool calling', () => {
  it('scores every agent answer, and records each search with the passages it returned', async () => {
    server = await startOpenAIServer({ respond: searchingModel });
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-agent-'));
    const result = await runExperiment({ config: await loadExperimentConfig(agentConfig(dir, server.url)), runId: 'agent' });
    const records = (await readRunRecords(result.runDir)).filter((r) => r.condition === 'agent@3');
    expect(records).toHaveLength(8);
    for (const r of records) {
      expect(r.score.status).toBe('scored');
      const searches = r.trace.filter((s) => s.kind === 'retrieve');
      expect(searches.map((s) => s.label)).toEqual(['search[1]', 'search[2]']);
      for (const s of searches) {
        expect(s.query).toBeTruthy();
        expect(s.passages).toHaveLength(3);
        expect(s.passages![0]).toMatchObject({ rank: 1, id: expect.any(String), score: expect.any(Number) });
      }
      expect(r.trace.filter((s) => s.kind === 'generate').map((s) => s.label)).toEqual(['turn[1]', 'turn[2]', 'turn[3]']);
      expect(new Set(r.retrieved.map((c) => c.id))).toEqual(new Set(searches.flatMap((s) => s.passages!.map((p) => p.id))));
      expect(r.cost).toMatchObject({ retrievalCalls: 2, generationCalls: 3 });
      expect(r.cost!.estimatedTokens).toBeUndefined(); // every turn's tokens come from the endpoint's usage
      expect(r.methodNotes).toMatchObject({ searches: 2, refusedSearches: 0, failedSearches: 0, reachedLimit: false });
      expect(r.response!.text).toMatch(/^根据检索：/);
      expect(r.prompt.some((m) => m.role === 'tool' && m.content.includes('【资料1】'))).toBe(true);
    }
    // The real protocol: `tools` in the request, `tool_calls` in the reply, `tool` messages back with the passages.
    const requests = server.chatRequests().map((r) => r.body as ChatRequestBody).filter((b) => b.tools !== undefined);
    expect(requests).toHaveLength(8 * 3);
    // The agent's own system prompt (a historian who searches), then the question.
    expect(requests[0]!.messages[0]!.role).toBe('system');
    expect(JSON.stringify(requests[0]!.messages[0]!.content)).toContain('历史学研究者');
    expect(requests.every((b) => b.tools?.[0]?.function.name === 'search')).toBe(true);
    const third = requests.find((b) => toolResults(b).length === 2)!;
    expect(third.messages.find((m) => m.role === 'assistant')!.tool_calls![0]!.function.name).toBe('search');
    expect(toolResults(third)[0]!.tool_call_id).toMatch(/^call_/);
    expect(result.summary.cells.find((c) => c.condition === 'agent@3')!.cost!.retrievalCalls).toBe(2);
  }, 120_000);

  it('runs to the end against a model that never calls a tool: every answer scored, 0 searches', async () => {
    server = await startOpenAIServer({ respond: (request) => (isJudge(request) ? deterministicResponder(request) : '科举始于隋朝。') });
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-agent-notools-'));
    const result = await runExperiment({ config: await loadExperimentConfig(agentConfig(dir, server.url)), runId: 'no-tools' });
    const records = (await readRunRecords(result.runDir)).filter((r) => r.condition === 'agent@3');
    expect(records).toHaveLength(8);
    for (const r of records) {
      expect(r.score.status).toBe('scored');
      expect(r.cost!.retrievalCalls).toBe(0);
      expect(r.methodNotes).toMatchObject({ searches: 0, turns: 1 });
      expect(r.retrieved).toEqual([]);
    }
  }, 120_000);

  it('gives the fault-free scores for every item scored in both under 30% injected faults, and counts the rest', async () => {
    const faulty = await startOpenAIServer({ respond: searchingModel, faults: { rate: 0.3, kinds: ['429', '500', 'timeout', 'malformed', 'empty', 'reset'], seed: 3, retryAfterSeconds: 0.02 } });
    server = await startOpenAIServer({ respond: searchingModel });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'hisrag-agent-faults-'));
      const generator = { retries: 2, timeoutMs: 800 };
      const a = await runExperiment({ config: await loadExperimentConfig(agentConfig(dir, faulty.url, {}, generator)), runId: 'faulty' });
      const b = await runExperiment({ config: await loadExperimentConfig(agentConfig(dir, server.url, {}, generator)), runId: 'clean' });
      const clean = new Map((await readRunRecords(b.runDir)).map((r) => [r.key, r]));
      const records = await readRunRecords(a.runDir);
      expect(faulty.chatRequests().filter((r) => r.fault).length).toBeGreaterThan(5);
      let compared = 0;
      for (const r of records) {
        if (r.score.status !== 'scored') {
          expect(r.score.error ?? r.error).toBeTruthy();
          continue;
        }
        expect(r.response!.text).toBe(clean.get(r.key)!.response!.text);
        expect(r.score.score).toBe(clean.get(r.key)!.score.score);
        compared++;
      }
      expect(compared).toBeGreaterThan(records.length / 2);
      expect(a.summary.totals.scored + a.summary.totals.generationFailed + a.summary.totals.judgeFailed).toBe(records.length);
    } finally {
      await faulty.close();
    }
  }, 180_000);

  it('replays a cached conversation without calling the endpoint', async () => {
    server = await startOpenAIServer({ respond: searchingModel });
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-agent-cache-'));
    const cache = join(dir, 'responses.sqlite');
    const file = agentConfig(dir, server.url, {}, { cache }, { strategies: [{ name: 'agent', maxSearches: 4 }], scoring: { bootstrapResamples: 100, baseline: 'agent@3' }, judge: { name: 'lexical' } });
    const first = await runExperiment({ config: await loadExperimentConfig(file), runId: 'first' });
    const asked = server.chatRequests().length;
    expect(asked).toBe(8 * 3);
    closeResponseCaches();
    const second = await runExperiment({ config: await loadExperimentConfig(file), runId: 'second' });
    expect(server.chatRequests().length).toBe(asked);
    const answers = async (dir: string) => (await readRunRecords(dir)).map((r) => [r.key, r.response!.text, r.trace.length]).sort();
    expect(await answers(second.runDir)).toEqual(await answers(first.runDir));
    expect((await readRunRecords(second.runDir)).every((r) => r.cost!.cachedCalls === 3)).toBe(true);
  }, 120_000);

  it('runs round by round through a batch API (batch: true): the answers and traces of a live run, no live request', async () => {
    server = await startOpenAIServer({ respond: searchingModel });
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-agent-batch-'));
    for (const sub of ['live', 'batch']) mkdirSync(join(dir, sub));
    const live = await runExperiment({ config: await loadExperimentConfig(agentConfig(join(dir, 'live'), server.url)), runId: 'live' });
    const liveRequests = server.chatRequests().length;
    const batched = await runExperiment({
      config: await loadExperimentConfig(agentConfig(join(dir, 'batch'), server.url, {}, { cache: join(dir, 'batch', 'responses.sqlite'), batch: { pollMs: 5 } })),
      runId: 'batch',
    });
    expect(server.chatRequests().length).toBe(liveRequests);
    // Three agent turns and the judge: at least four rounds, each batch holding the turn's tool calls and results.
    expect(server.batches.length).toBeGreaterThanOrEqual(4);
    const answers = async (runDir: string) => (await readRunRecords(runDir)).map((r) => [r.key, r.response!.text, r.trace.map((s) => s.label).join(','), r.score.score]).sort();
    expect(await answers(batched.runDir)).toEqual(await answers(live.runDir));
  }, 120_000);

  it('fails the first agent item of a model that rejects `tools` with HTTP 400, names it, and stops the run', async () => {
    server = await startOpenAIServer({ respond: (request) => (isJudge(request) ? deterministicResponder(request) : '答'), rejectTools: true });
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-agent-400-'));
    const file = agentConfig(dir, server.url, {}, {}, { strategies: [{ name: 'agent' }], execution: { concurrency: 1 }, scoring: { bootstrapResamples: 100, baseline: 'agent@3' } });
    const run = runExperiment({ config: await loadExperimentConfig(file), runId: 'rejects' });
    await expect(run).rejects.toThrow(/model "stand-in-llm" rejected a request offering tools \(HTTP 400.*does not support tool calling/);
    const records = await readRunRecords(join(dir, 'runs', 'rejects'));
    expect(records).toHaveLength(1);
    expect(records[0]!.score.status).toBe('generation_failed');
    expect(server.chatRequests()).toHaveLength(1);
  }, 120_000);
});

describe('agent limits and failures (one item)', () => {
  it('refuses searches past maxSearches through the tool-call limit, ending with the best answer so far', async () => {
    server = await startOpenAIServer({
      respond: (request) => {
        const refused = toolResults(request).some((m) => (m.content ?? '').includes('limit exceeded'));
        if (refused) throw new Error('the run should end at the limit, not ask the model again');
        const n = toolResults(request).length;
        return { content: n === 1 ? '初步判断：隋朝。' : null, tool_calls: [{ name: 'search', args: { query: `科举 第${n + 1}次` } }] };
      },
    });
    const { run, outcome } = await runMethod({ name: 'agent', maxSearches: 2, maxSteps: 20 }, server.url);
    // Two searches ran; the third call was refused by LangChain's tool-call limit, which ends the run.
    expect(run.trace.filter((s) => s.kind === 'retrieve')).toHaveLength(2);
    expect(outcome.prompt.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('limit exceeded') });
    expect(outcome.answer).toBe('初步判断：隋朝。');
    expect(outcome.notes).toMatchObject({ searches: 2, refusedSearches: 1, reachedLimit: true });
  });

  it('ends at maxSteps with the best answer so far, or an empty one', async () => {
    server = await startOpenAIServer({ respond: (request) => ({ content: toolResults(request).length === 1 ? '初步判断：隋朝。' : null, tool_calls: [{ name: 'search', args: { query: `第${toolResults(request).length}次` } }] }) });
    const { outcome } = await runMethod({ name: 'agent', maxSearches: 50, maxSteps: 6 }, server.url);
    expect(outcome.notes).toMatchObject({ reachedLimit: true });
    expect(outcome.answer).toBe('初步判断：隋朝。');
    await server.close();
    server = await startOpenAIServer({ respond: () => ({ content: null, tool_calls: [{ name: 'search', args: { query: '再查' } }] }) });
    const silent = await runMethod({ name: 'agent', maxSearches: 50, maxSteps: 4 }, server.url);
    expect(silent.outcome.notes).toMatchObject({ reachedLimit: true });
    expect(silent.outcome.answer).toBe('');
  });

  it('gives a failing search back to the model as a tool error, counted, and goes on', async () => {
    server = await startOpenAIServer({
      respond: (request) => {
        const results = toolResults(request);
        if (results.length === 0) return { content: null, tool_calls: [{ name: 'search', args: { query: 'FAIL' } }] };
        if (results.length === 1) return { content: null, tool_calls: [{ name: 'search', args: { query: '科举' } }] };
        return `看到错误：${results[0]!.content!.startsWith('检索失败') ? '是' : '否'}`;
      },
    });
    const { run, outcome } = await runMethod({ name: 'agent' }, server.url, { failQuery: 'FAIL' });
    expect(outcome.answer).toBe('看到错误：是');
    expect(outcome.notes).toMatchObject({ searches: 2, failedSearches: 1 });
    expect(run.trace.find((s) => s.label === 'search[1]')).toMatchObject({ kind: 'retrieve', error: expect.stringContaining('index unavailable') });
  });

  it('fails the item when a model turn fails after the endpoint\'s retries', async () => {
    server = await startOpenAIServer({
      respond: (request) => (toolResults(request).length ? '答' : { content: null, tool_calls: [{ name: 'search', args: { query: '科举' } }] }),
      faults: { rate: 0, kinds: [], seed: 1, script: [null, '500'] },
    });
    await expect(runMethod({ name: 'agent' }, server.url)).rejects.toThrow(/step 3 \(generate "turn\[2\]"\) failed/);
  });
});
