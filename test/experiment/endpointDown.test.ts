import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { ServiceUnavailableError } from '../../src/errors.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { runCli, summaryWithoutTiming } from '../helpers/runCli.js';
import { deterministicResponder, endpointExperimentConfig } from './endpointFixtures.js';

describe('an endpoint that is down', () => {
  const servers: OpenAIServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('stops the run early, names the endpoint, exits 3; --resume completes it once the endpoint is back', async () => {
    // Find a free port, then leave it closed: every request is refused.
    const probe = await startOpenAIServer();
    const port = Number(new URL(probe.url).port);
    const url = probe.url;
    await probe.close();

    const dir = mkdtempSync(join(tmpdir(), 'hisrag-down-'));
    // Generous retries: without the breaker this run would take minutes.
    const generator = { retries: 8, retryBaseMs: 200, retryMaxMs: 2000, unavailableAfterMs: 3000 };
    const config = endpointExperimentConfig(dir, url, generator);
    const runDir = join(dir, 'runs', 'down');
    const started = Date.now();
    const down = await runCli(['run', config, '--run-id', 'down', '--no-progress']);
    const seconds = (Date.now() - started) / 1000;
    expect(down.code).toBe(3);
    expect(down.stderr).toContain(`endpoint ${url} is unavailable`);
    expect(down.stderr).toContain(`hisrag run --resume ${runDir}`);
    expect(down.stderr).not.toContain('internal error');
    expect(seconds).toBeLessThan(60);
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
    expect(manifest.complete).toBe(false);
    expect(manifest.stoppedBecause).toContain(url);

    // The endpoint comes back on the same address.
    const back = await startOpenAIServer({ respond: deterministicResponder, port });
    servers.push(back);
    const resumed = await runCli(['run', '--resume', runDir, '--no-progress']);
    expect(resumed.stderr).not.toContain('internal error');
    expect(resumed.code).toBe(0);
    expect(JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')).complete).toBe(true);

    const reference = await runCli(['run', config, '--run-id', 'uninterrupted', '--no-progress']);
    expect(reference.code).toBe(0);
    expect(summaryWithoutTiming(readFileSync(join(runDir, 'summary.json'), 'utf8'))).toBe(summaryWithoutTiming(readFileSync(join(dir, 'runs', 'uninterrupted', 'summary.json'), 'utf8')));
  }, 240_000);

  it('--resume answers again the items recorded as failed, and the new record is the one that counts', async () => {
    // The first 6 requests fail with a 500 and there are no retries: 6 items are recorded as failed.
    const server = await startOpenAIServer({ respond: deterministicResponder, faults: { rate: 0, kinds: [], seed: 0, script: Array(6).fill('500') } });
    servers.push(server);
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-retry-failed-'));
    const file = endpointExperimentConfig(dir, server.url, { retries: 0 });
    const first = await runExperiment({ config: await loadExperimentConfig(file), runId: 'first' });
    const failedBefore = (await readRunRecords(first.runDir)).filter((r) => r.score.status !== 'scored');
    expect(failedBefore.length).toBeGreaterThanOrEqual(1);

    // --keep-failed: nothing to do, the failures stay.
    const kept = await runExperiment({ resumeDir: first.runDir, retryFailed: false });
    expect(kept.newItems).toBe(0);
    expect(kept.summary.totals.generationFailed).toBe(failedBefore.length);

    const log: string[] = [];
    const resumed = await runExperiment({ resumeDir: first.runDir, log: (line) => log.push(line) });
    expect(log.join('\n')).toMatch(new RegExp(`of which ${failedBefore.length} failed before and are retried`));
    expect(resumed.newItems).toBe(failedBefore.length);
    const records = await readRunRecords(first.runDir);
    expect(records.every((r) => r.score.status === 'scored')).toBe(true);
    expect(records).toHaveLength(24);
    // The failed records stay in items.jsonl as history; the summary counts each key once.
    expect(readFileSync(join(first.runDir, 'items.jsonl'), 'utf8').trim().split('\n')).toHaveLength(24 + failedBefore.length);
    expect(resumed.summary.totals.items).toBe(24);
    expect(resumed.summary.totals.generationFailed).toBe(0);
  }, 120_000);

  it('with execution.maxFailures, stops scheduling but keeps the answers already in flight', async () => {
    // Four answers start at once; the first two fail, the other two are still on their way.
    const server = await startOpenAIServer({
      respond: async (request) => {
        await new Promise((r) => setTimeout(r, 300));
        return deterministicResponder(request);
      },
      faults: { rate: 0, kinds: [], seed: 0, script: ['500', '500'] },
    });
    servers.push(server);
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-max-failures-'));
    const file = endpointExperimentConfig(dir, server.url, { retries: 0 }, { execution: { concurrency: 4, maxFailures: 2 } });
    const config = await loadExperimentConfig(file);
    const error = await runExperiment({ config, runId: 'limited' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as Error).message).toMatch(/stopped after 2 failed answers \(execution\.maxFailures: 2\)/);
    const records = await readRunRecords(join(dir, 'runs', 'limited'));
    expect(records.filter((r) => r.score.status === 'generation_failed')).toHaveLength(2);
    // Those in flight when the limit was reached (the two that started with the failures, and any
    // that took a failed one's slot before the second failure) are all kept.
    const scored = records.filter((r) => r.score.status === 'scored').length;
    expect(scored).toBeGreaterThanOrEqual(2);
    expect(scored).toBeLessThanOrEqual(4);
    expect(records.length).toBeLessThan(24);
  }, 120_000);
});
