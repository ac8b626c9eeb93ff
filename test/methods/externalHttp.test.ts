import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { runCli, summaryWithoutTiming } from '../helpers/runCli.js';
import { externalConfig, freePort, httpStrategy, startRagServiceStub, type RagServiceStub } from './externalFixtures.js';

const byItem = (records: RunItemRecord[], condition: string) => new Map(records.filter((r) => r.condition === condition).map((r) => [r.itemId, r]));

// Quick retries and a short timeout: the faults cost milliseconds, not minutes.
const FAST = { retries: 6, retryBaseMs: 10, retryMaxMs: 50, timeoutMs: 400, concurrency: 3 };

describe('the http method: a RAG service behind an HTTP API', () => {
  const stubs: RagServiceStub[] = [];
  afterAll(async () => {
    for (const s of stubs) await s.close();
  });

  async function run(stub: RagServiceStub, runId: string, extra: Record<string, unknown> = {}) {
    const dir = mkdtempSync(join(tmpdir(), `hisrag-http-${runId}-`));
    const file = externalConfig(dir, [httpStrategy(stub.url, { ...FAST, ...extra })]);
    const result = await runExperiment({ config: await loadExperimentConfig(file), runId });
    return { result, records: await readRunRecords(result.runDir) };
  }

  it('maps the reply: the answer is scored, the contexts are the record’s passages with recall on their pages', async () => {
    const stub = await startRagServiceStub();
    stubs.push(stub);
    const { result, records } = await run(stub, 'plain');
    const http = records.filter((r) => r.condition === 'my-rag');
    expect(http).toHaveLength(20);
    expect(http.every((r) => r.score.status === 'scored')).toBe(true);
    const first = http.find((r) => r.itemId === '90001_1')!;
    expect(first.k).toBeNull();
    expect(first.retrieved.length).toBeGreaterThan(0);
    for (const chunk of first.retrieved) expect(chunk.text).toBe(`第${chunk.page}页的文字`);
    expect(first.contextIds).toEqual(first.retrieved.map((c) => c.id));
    expect(stub.requests.find((q) => q.body.id === '90001_1')!.body).toEqual({ query: '貢院號舍各巷以何書的字序編號？', id: '90001_1', doc_id: '90001' });
    // Answerable items get retrieval metrics on the service's pages; the unanswerable ones (no gold) none.
    expect(http.filter((r) => r.retrievalMetrics).length).toBe(17);
    const cell = result.summary.cells.find((c) => c.condition === 'my-rag')!;
    expect(cell.retrieval!.recall).toBeGreaterThan(0);
    expect(cell.retrieval!.recall).toBeLessThan(1);
    expect(result.summary.paired.find((p) => p.condition === 'my-rag')!.n).toBe(20);
    // One traced step per answer, and a cost: one call, tokens estimated (the service reports none).
    expect(first.trace).toHaveLength(1);
    expect(first.trace[0]).toMatchObject({ kind: 'http', label: 'ask', detail: { attempts: 1, contexts: first.retrieved.length } });
    expect(first.cost).toMatchObject({ retrievalCalls: 0, generationCalls: 1, estimatedTokens: true });
  }, 60_000);

  const FAULTS = { rate: 0.3, kinds: ['429', '500', 'timeout', 'malformed', 'no-answer'] as const, seed: 5 };

  it('under 30% faults (429, 500, timeouts, malformed JSON, no answer field) gives exactly the fault-free scores for every item', async () => {
    const clean = await startRagServiceStub();
    const faulty = await startRagServiceStub({ faults: { ...FAULTS, kinds: [...FAULTS.kinds] } });
    stubs.push(clean, faulty);
    const reference = byItem((await run(clean, 'clean')).records, 'my-rag');
    const { records } = await run(faulty, 'faulty');
    const got = byItem(records, 'my-rag');

    const kinds = new Set(faulty.requests.map((r) => r.fault).filter(Boolean));
    expect([...kinds].sort()).toEqual(['429', '500', 'malformed', 'no-answer', 'timeout']);
    expect(faulty.maxInFlight).toBeLessThanOrEqual(3);
    expect(got.size).toBe(20);
    for (const [id, record] of got) {
      const base = reference.get(id)!;
      expect(record.score.status, id).toBe('scored');
      expect(record.score.score, id).toBe(base.score.score);
      expect(record.retrievalMetrics, id).toEqual(base.retrievalMetrics);
      expect(record.retrieved.map((c) => [c.id, c.page]), id).toEqual(base.retrieved.map((c) => [c.id, c.page]));
    }
    // Some answers needed several attempts; the 429s are counted in their cost, as for a model.
    expect(records.some((r) => r.condition === 'my-rag' && Number(r.trace[0]?.detail?.attempts) > 1)).toBe(true);
    expect(records.some((r) => r.condition === 'my-rag' && (r.cost?.rateLimited ?? 0) > 0)).toBe(true);
  }, 60_000);

  it('with too few retries for the faults, scores the rest exactly as fault-free and counts the failed items, never as 0', async () => {
    const clean = await startRagServiceStub();
    const faulty = await startRagServiceStub({ faults: { ...FAULTS, kinds: [...FAULTS.kinds] } });
    stubs.push(clean, faulty);
    const reference = byItem((await run(clean, 'clean-1')).records, 'my-rag');
    const { result, records } = await run(faulty, 'faulty-1', { retries: 1 });
    const got = [...byItem(records, 'my-rag').values()];
    const failed = got.filter((r) => r.score.status !== 'scored');
    expect(failed.length).toBeGreaterThanOrEqual(1);
    for (const record of failed) {
      expect(record.score.score).toBeNull();
      expect(record.error).toMatch(/^http "ask" \(POST http:\/\/127\.0\.0\.1:\d+\/ask\) failed: /);
    }
    for (const record of got.filter((r) => r.score.status === 'scored')) expect(record.score.score, record.itemId).toBe(reference.get(record.itemId)!.score.score);
    const cell = result.summary.cells.find((c) => c.condition === 'my-rag')!;
    expect(cell.items).toBe(20);
    expect(cell.failed.generation).toBe(failed.length);
    expect(cell.scored).toBe(20 - failed.length);
  }, 60_000);

  it('answers from the response cache on a second run, without calling the service', async () => {
    const stub = await startRagServiceStub();
    stubs.push(stub);
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-http-cache-'));
    const cache = join(dir, 'cache.sqlite');
    const first = byItem((await run(stub, 'cache-1', { cache })).records, 'my-rag');
    const calls = stub.requests.length;
    const second = byItem((await run(stub, 'cache-2', { cache })).records, 'my-rag');
    expect(stub.requests.length).toBe(calls);
    for (const [id, record] of second) {
      expect(record.score.score).toBe(first.get(id)!.score.score);
      expect(record.response?.cached).toBe(true);
      expect(record.cost?.cachedCalls).toBe(1);
    }
  }, 60_000);

  it('sends the key named by apiKeyEnv and keeps it out of the run directory', async () => {
    const stub = await startRagServiceStub();
    stubs.push(stub);
    process.env.HISRAG_TEST_RAG_KEY = 'sk-test-rag-4711';
    try {
      const { result } = await run(stub, 'key', { apiKeyEnv: 'HISRAG_TEST_RAG_KEY' });
      expect(stub.requests[0]!.headers.authorization).toBe('Bearer sk-test-rag-4711');
      for (const name of ['config.json', 'manifest.json', 'items.jsonl', 'summary.json']) {
        expect(readFileSync(join(result.runDir, name), 'utf8')).not.toContain('sk-test-rag-4711');
      }
    } finally {
      delete process.env.HISRAG_TEST_RAG_KEY;
    }
  }, 60_000);

  it('refuses a body template naming a field items do not have, before anything runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-http-template-'));
    const file = externalConfig(dir, [httpStrategy('http://127.0.0.1:9', { body: { q: '{questoin}' } })]);
    await expect(loadExperimentConfig(file).then((config) => runExperiment({ config }))).rejects.toThrow(/strategies\[1\]\.body: unknown placeholder \{questoin\}/);
  });

  it('service down: hisrag run exits 3 naming the service; --resume completes once it is back, as an uninterrupted run', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-http-down-'));
    const file = externalConfig(dir, [httpStrategy(url, { retries: 8, retryBaseMs: 200, retryMaxMs: 1000, unavailableAfterMs: 1500 })]);
    const runDir = join(dir, 'runs', 'down');
    const down = await runCli(['run', file, '--run-id', 'down', '--no-progress']);
    expect(down.code).toBe(3);
    expect(down.stderr).toContain(`endpoint ${url} is unavailable`);
    expect(down.stderr).toContain(`hisrag run --resume ${runDir}`);
    expect(down.stderr).not.toContain('internal error');
    expect(JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')).complete).toBe(false);

    const back = await startRagServiceStub({ port });
    stubs.push(back);
    const resumed = await runCli(['run', '--resume', runDir, '--no-progress']);
    expect(resumed.stderr).not.toContain('internal error');
    expect(resumed.code).toBe(0);
    expect(JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')).complete).toBe(true);
    const reference = await runExperiment({ config: await loadExperimentConfig(file), runId: 'uninterrupted' });
    expect(summaryWithoutTiming(readFileSync(join(runDir, 'summary.json'), 'utf8'))).toBe(summaryWithoutTiming(readFileSync(join(reference.runDir, 'summary.json'), 'utf8')));
  }, 60_000);
});
