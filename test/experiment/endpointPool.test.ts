import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { deterministicResponder, endpointExperimentConfig } from './endpointFixtures.js';

/** Model and judge served by two replicas of one local endpoint; one of them is stopped halfway through. */
describe('a model on two replicas, one stopped halfway through the run', () => {
  const servers: OpenAIServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close().catch(() => {});
  });
  const generator = { concurrency: 2, retries: 4, retryBaseMs: 5, retryMaxMs: 50, timeoutMs: 5000 };

  it('scores every item exactly as a one-endpoint run, the load spread over both replicas', async () => {
    const single = await startOpenAIServer({ respond: deterministicResponder });
    const [a, b] = [await startOpenAIServer({ respond: deterministicResponder }), await startOpenAIServer({ respond: deterministicResponder })];
    servers.push(single, a, b);
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-pool-'));
    for (const sub of ['one', 'pool']) mkdirSync(join(dir, sub));
    const oneFile = endpointExperimentConfig(join(dir, 'one'), single.url, generator, { execution: { concurrency: 4 } });
    const one = await runExperiment({ config: await loadExperimentConfig(oneFile), runId: 'one' });
    const total = single.chatRequests().length;

    // Replica A goes away once it has answered a quarter of the run's requests.
    let stopped = false;
    const watch = setInterval(() => {
      if (!stopped && a.chatRequests().length >= total / 4) {
        stopped = true;
        void a.close();
      }
    }, 5);
    const poolFile = endpointExperimentConfig(join(dir, 'pool'), [a.url, b.url] as unknown as string, generator, { execution: { concurrency: 4 } });
    const pool = await runExperiment({ config: await loadExperimentConfig(poolFile), runId: 'pool' }).finally(() => clearInterval(watch));

    expect(stopped).toBe(true);
    expect(a.chatRequests().length).toBeGreaterThan(0);
    expect(b.chatRequests().length).toBeGreaterThan(a.chatRequests().length);
    const byKey = (records: RunItemRecord[]) => new Map(records.map((r) => [r.key, r]));
    const oneRecords = byKey(await readRunRecords(one.runDir));
    const poolRecords = await readRunRecords(pool.runDir);
    expect(poolRecords).toHaveLength(oneRecords.size);
    for (const r of poolRecords) {
      const twin = oneRecords.get(r.key)!;
      expect(r.score.status, r.key).toBe('scored');
      expect(r.response!.text).toBe(twin.response!.text);
      expect(r.score.score).toBe(twin.score.score);
    }
    expect(pool.summary.cells.map((c) => c.score.mean)).toEqual(one.summary.cells.map((c) => c.score.mean));
  }, 120_000);

  it('stops with exit 3 only when every replica is down', async () => {
    const [a, b] = [await startOpenAIServer({ respond: deterministicResponder }), await startOpenAIServer({ respond: deterministicResponder })];
    await a.close();
    await b.close();
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-pool-down-'));
    const file = endpointExperimentConfig(dir, [a.url, b.url] as unknown as string, { ...generator, unavailableAfterMs: 300 }, { execution: { concurrency: 2 } });
    await expect(runExperiment({ config: await loadExperimentConfig(file), runId: 'down' })).rejects.toThrow(/unavailable/);
  }, 60_000);
});
