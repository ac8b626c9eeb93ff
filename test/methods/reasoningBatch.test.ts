import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import { closeResponseCaches } from '../../src/generation/responseCache.js';
import { endpointExperimentConfig } from '../experiment/endpointFixtures.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { REASONING_METHODS, reasoningCompletion, reasoningResponder } from './reasoningFixtures.js';

const ITEMS = 3;
/** The conditions that continue the transcript through `/v1/completions`. */
const COMPLETIONS = new Set(['search-o1-completions@4', 'research@4']);

/** What must not depend on how the calls were answered: each step's kind, label and query. */
const steps = (r: RunItemRecord) => r.trace.map((s) => `${s.kind}:${s.label}${s.query ? `(${s.query})` : ''}`);

describe('Search-o1, the searcher protocols and FLARE in batch mode (batch: true)', () => {
  const servers: OpenAIServer[] = [];
  let live: Map<string, RunItemRecord>;
  let records: RunItemRecord[];
  let batchServer: OpenAIServer;
  let batchDir: string;

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'hisrag-reasoning-batch-'));
    const configIn = (dir: string, url: string, batch: boolean) => {
      mkdirSync(dir, { recursive: true });
      return endpointExperimentConfig(dir, url, { retries: 2, retryBaseMs: 5, timeoutMs: 5000, cache: join(dir, 'responses.sqlite'), ...(batch ? { batch: { pollMs: 10 } } : {}) }, {
        strategies: REASONING_METHODS,
        retrieval: { retriever: { name: 'hnsw', index: join(dir, 'index') }, k: [4] },
        benchmark: { name: 'prohist', file: join(process.cwd(), 'experiments/data/demo-prohist.json'), limit: ITEMS },
      });
    };
    const liveServer = await startOpenAIServer({ respond: reasoningResponder, complete: reasoningCompletion });
    batchServer = await startOpenAIServer({ respond: reasoningResponder, complete: reasoningCompletion, batch: { pollsPerState: 2 } });
    servers.push(liveServer, batchServer);
    const liveRun = await runExperiment({ config: await loadExperimentConfig(configIn(join(root, 'live'), liveServer.url, false)), runId: 'live' });
    live = new Map((await readRunRecords(liveRun.runDir)).map((r) => [r.key, r]));
    const run = await runExperiment({ config: await loadExperimentConfig(configIn(join(root, 'batch'), batchServer.url, true)), runId: 'batch' });
    records = await readRunRecords(run.runDir);
    batchDir = join(run.runDir, 'batches');
  }, 300_000);

  afterAll(async () => {
    closeResponseCaches();
    for (const server of servers) await server.close().catch(() => {});
  });

  it('give exactly the answers, steps, queries and tokens of the same grid run live, every question scored', () => {
    expect(records).toHaveLength(ITEMS * REASONING_METHODS.length);
    expect(records).toHaveLength(live.size);
    for (const r of records) {
      const twin = live.get(r.key)!;
      expect(r.score.status, r.key).toBe('scored');
      expect(r.response!.text, r.key).toBe(twin.response!.text);
      expect(steps(r), r.key).toEqual(steps(twin));
      expect([r.cost!.promptTokens, r.cost!.completionTokens], r.key).toEqual([twin.cost!.promptTokens, twin.cost!.completionTokens]);
    }
  });

  it('send every chat call through the batches, stop sequences and logprobs in the lines, and no live chat request', () => {
    expect(batchServer.chatRequests()).toHaveLength(0);
    const chatOnly = records.filter((r) => !COMPLETIONS.has(r.condition));
    expect(new Set(chatOnly.map((r) => r.condition))).toEqual(new Set(['search-o1@4', 'search-r1@4', 'flare@4', 'flare-question@4']));
    for (const r of chatOnly) expect(r.cost!.batchedCalls, r.key).toBe(r.cost!.generationCalls);
    // A multi-step method goes one round per step: the lines of later rounds continue what earlier rounds answered.
    const bodies = readdirSync(batchDir)
      .filter((f) => /^r\d+-.*\d\.jsonl$/.test(f))
      .flatMap((f) => readFileSync(join(batchDir, f), 'utf8').trim().split('\n'))
      .map((line) => (JSON.parse(line) as { body: { stop?: string[]; logprobs?: boolean; max_tokens?: number; messages: { content: string }[] } }).body);
    expect(bodies.some((b) => JSON.stringify(b.stop) === JSON.stringify(['<|end_search_query|>']))).toBe(true);
    expect(bodies.some((b) => JSON.stringify(b.stop) === JSON.stringify(['</search>']))).toBe(true);
    expect(bodies.some((b) => b.logprobs === true)).toBe(true);
    expect(bodies.some((b) => b.messages.some((m) => m.content.includes('<|begin_search_result|>')))).toBe(true);
    expect(batchServer.batches.length).toBeGreaterThanOrEqual(3);
  });

  it('make completions-API calls live (the Batch API takes chat requests), their chat steps still batched', () => {
    // docs/methods.md: completions-API calls are made live in batch mode.
    expect(batchServer.completionRequests().length).toBeGreaterThan(0);
    for (const r of records.filter((x) => COMPLETIONS.has(x.condition))) {
      const chatSteps = r.trace.filter((s) => s.kind === 'generate' && s.label.startsWith('reason-in-documents')).length;
      expect(r.cost!.batchedCalls ?? 0, r.key).toBe(chatSteps);
      // The live completions were paid for: counted as calls, never as the cache hits their replays in later rounds are.
      const twin = live.get(r.key)!;
      expect([r.cost!.generationCalls, r.cost!.cachedCalls ?? 0], r.key).toEqual([twin.cost!.generationCalls, twin.cost!.cachedCalls ?? 0]);
    }
  });
});
