import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import { closeResponseCaches } from '../../src/generation/responseCache.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { queryMethodResponder, queryMethodsEndpointConfig } from './queryMethodsEndpoint.js';

describe('the query-side, corrective and compression methods in batch mode (batch: true)', () => {
  const servers: OpenAIServer[] = [];
  afterAll(async () => {
    closeResponseCaches();
    for (const server of servers) await server.close().catch(() => {});
  });

  it('go round by round through the Batch API and give exactly the answers of the same grid run live', async () => {
    const root = mkdtempSync(join(tmpdir(), 'hisrag-query-batch-'));
    const extra = { benchmark: { name: 'prohist', file: join(process.cwd(), 'experiments/data/demo-prohist.json'), limit: 3 } };
    const configIn = (dir: string, url: string, batch: boolean) => {
      mkdirSync(dir, { recursive: true });
      return queryMethodsEndpointConfig(dir, url, { retries: 2, retryBaseMs: 5, timeoutMs: 5000, cache: join(dir, 'responses.sqlite'), ...(batch ? { batch: { pollMs: 10 } } : {}) }, extra);
    };
    const liveServer = await startOpenAIServer({ respond: queryMethodResponder });
    const batchServer = await startOpenAIServer({ respond: queryMethodResponder, batch: { pollsPerState: 2 } });
    servers.push(liveServer, batchServer);
    const liveRun = await runExperiment({ config: await loadExperimentConfig(configIn(join(root, 'live'), liveServer.url, false)), runId: 'live' });
    const live = new Map((await readRunRecords(liveRun.runDir)).map((r) => [r.key, r]));
    const run = await runExperiment({ config: await loadExperimentConfig(configIn(join(root, 'batch'), batchServer.url, true)), runId: 'batch' });
    expect(batchServer.chatRequests()).toHaveLength(0);
    const records = await readRunRecords(run.runDir);
    expect(records).toHaveLength(live.size);
    for (const r of records) {
      const twin = live.get(r.key)!;
      expect(r.score.status, r.key).toBe('scored');
      expect(r.response!.text, r.key).toBe(twin.response!.text);
      expect(r.trace.map((s) => s.label), r.key).toEqual(twin.trace.map((s) => s.label));
      expect(r.cost!.batchedCalls, r.key).toBe(r.cost!.generationCalls);
    }
    // A step waits for the one before it: a method's steps, then the judge, are rounds of their own.
    expect(batchServer.batches.length).toBeGreaterThanOrEqual(6);
    // CRAG's k = 4 grades of a question are asked at once: all four go out in one round.
    const batchDir = join(run.runDir, 'batches');
    const gradeRounds = new Map<string, Set<string>>();
    for (const file of readdirSync(batchDir).filter((f) => /^r\d+-.*\d\.jsonl$/.test(f))) {
      for (const line of readFileSync(join(batchDir, file), 'utf8').trim().split('\n')) {
        const prompt = (JSON.parse(line) as { body: { messages: { content: string }[] } }).body.messages.map((m) => m.content).join('\n');
        if (!prompt.includes('请判断这条资料与问题的相关程度')) continue;
        const question = /【问题】(.+)/.exec(prompt)![1]!;
        const rounds = gradeRounds.get(question) ?? new Set<string>();
        gradeRounds.set(question, rounds.add(file.split('-')[0]!));
      }
    }
    expect(gradeRounds.size).toBe(3);
    for (const [question, rounds] of gradeRounds) expect([...rounds], question).toHaveLength(1);
    const submitted = batchServer.batches.flatMap((b) => b.customIds);
    expect(new Set(submitted).size).toBe(submitted.length);
  }, 300_000);
});
