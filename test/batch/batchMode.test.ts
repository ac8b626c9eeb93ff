import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import { closeResponseCaches } from '../../src/generation/responseCache.js';
import { distinctRequests } from './batchFixtures.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { startOpenAIServer, type BatchServerOptions, type OpenAIServer } from '../helpers/openaiServer.js';
import { runCli } from '../helpers/runCli.js';
import { deterministicResponder, endpointExperimentConfig } from '../experiment/endpointFixtures.js';

const strategies = ['closed-book', 'rag', { name: 'iter-retgen', rounds: 2 }];
const fast = { concurrency: 4, retries: 2, retryBaseMs: 5, retryMaxMs: 20, timeoutMs: 5000 };

function configIn(dir: string, url: string, batch: boolean, extra: Record<string, unknown> = {}): string {
  mkdirSync(dir, { recursive: true });
  const generator = { ...fast, cache: join(dir, 'responses.sqlite'), ...(batch ? { batch: { pollMs: 10 } } : {}) };
  return endpointExperimentConfig(dir, url, generator, { strategies, ...extra });
}

const byKey = (records: RunItemRecord[]) => new Map(records.map((r) => [r.key, r]));

/** Scores, answers and judge verdicts of a batch run against those of the same grid run live. */
function expectSameAsLive(batchRecords: RunItemRecord[], live: Map<string, RunItemRecord>): void {
  expect(batchRecords).toHaveLength(live.size);
  for (const r of batchRecords) {
    const twin = live.get(r.key)!;
    expect(r.score.status, r.key).toBe('scored');
    expect(r.response!.text, r.key).toBe(twin.response!.text);
    expect(r.score.score, r.key).toBe(twin.score.score);
    expect(r.cost!.generationCalls, r.key).toBe(twin.cost!.generationCalls);
  }
}

describe('batch mode (batch: true) against a local Batch API server', () => {
  const servers: OpenAIServer[] = [];
  afterAll(async () => {
    closeResponseCaches();
    for (const server of servers) await server.close().catch(() => {});
  });
  let live: Map<string, RunItemRecord>;
  let liveMeans: (number | null)[];
  const root = mkdtempSync(join(tmpdir(), 'hisrag-batch-'));

  it('gives exactly the scores of the same grid run live, with no live chat completion request', async () => {
    const liveServer = await startOpenAIServer({ respond: deterministicResponder });
    const batchServer = await startOpenAIServer({ respond: deterministicResponder, batch: { pollsPerState: 2 } });
    servers.push(liveServer, batchServer);
    const liveRun = await runExperiment({ config: await loadExperimentConfig(configIn(join(root, 'live'), liveServer.url, false)), runId: 'live' });
    live = byKey(await readRunRecords(liveRun.runDir));
    liveMeans = liveRun.summary.cells.map((c) => c.score.mean);

    const lines: string[] = [];
    const run = await runExperiment({ config: await loadExperimentConfig(configIn(join(root, 'batch'), batchServer.url, true)), runId: 'batch', log: (l) => lines.push(l) });
    expect(batchServer.chatRequests()).toHaveLength(0);
    expectSameAsLive(await readRunRecords(run.runDir), live);
    expect(run.summary.cells.map((c) => c.score.mean)).toEqual(liveMeans);
    // Round by round: answers (and iter-retgen's first step), then later steps, then the judge.
    expect(batchServer.batches.length).toBeGreaterThanOrEqual(3);
    const submitted = batchServer.batches.flatMap((b) => b.customIds);
    expect(new Set(submitted).size).toBe(submitted.length);
    // Every model call a live run made was a batch line here, each once.
    expect(batchServer.batchLines.length).toBe(distinctRequests(liveServer).size);
    const records = await readRunRecords(run.runDir);
    expect(records.every((r) => r.cost!.batchedCalls === r.cost!.generationCalls)).toBe(true);
    expect(lines.some((l) => /batch round 1: \d+ requests to stand-in-llm/.test(l))).toBe(true);
    expect(lines.some((l) => /batch batch_\d+ \(stand-in-judge, round \d+\): completed, \d+ answers loaded/.test(l))).toBe(true);
  }, 180_000);

  it('completes lines that failed or expired by resubmitting them', async () => {
    const options: BatchServerOptions = {
      // A few lines fail the first time they are seen; the first batch expires half done.
      failLine: (customId, occurrence) => occurrence === 1 && customId.endsWith('7'),
      expire: (n) => (n === 1 ? 0.5 : undefined),
      // And every status request answers slowly.
      pollDelayMs: 50,
    };
    const server = await startOpenAIServer({ respond: deterministicResponder, batch: options });
    servers.push(server);
    const run = await runExperiment({ config: await loadExperimentConfig(configIn(join(root, 'faults'), server.url, true)), runId: 'faults' });
    expect(server.chatRequests()).toHaveLength(0);
    expectSameAsLive(await readRunRecords(run.runDir), live);
    expect(server.batches[0]!.status).toBe('expired');
    const failedOnce = server.batchLines.filter((id) => id.endsWith('7'));
    expect(failedOnce.length).toBeGreaterThan(0);
  }, 180_000);

  it('answers failed lines live with batchFallback: live', async () => {
    const server = await startOpenAIServer({ respond: deterministicResponder, batch: { failLine: (id) => id.endsWith('3') } });
    servers.push(server);
    const dir = join(root, 'fallback');
    mkdirSync(dir, { recursive: true });
    const generator = { ...fast, cache: join(dir, 'responses.sqlite'), batch: { pollMs: 10 }, batchFallback: 'live' };
    const run = await runExperiment({ config: await loadExperimentConfig(endpointExperimentConfig(dir, server.url, generator, { strategies })), runId: 'fallback' });
    expectSameAsLive(await readRunRecords(run.runDir), live);
    // Exactly the requests whose batch line failed went live (two answers needing one judge call at once may both ask).
    const liveKeys = distinctRequests(server);
    expect(liveKeys.size).toBeGreaterThan(0);
    expect([...liveKeys].sort()).toEqual([...new Set(server.batchLines.filter((id) => id.endsWith('3')))].sort());
  }, 180_000);

  it('killed with kill -9 while waiting on a batch and resumed: re-attaches, submits no request twice, same summary', async () => {
    // Batches stay in progress until the test lets them finish.
    const options: BatchServerOptions = { pollsPerState: 1_000_000 };
    const server = await startOpenAIServer({ respond: deterministicResponder, batch: options });
    servers.push(server);
    const dir = join(root, 'killed');
    const file = configIn(dir, server.url, true);
    const first = await runCli(['run', file, '--run-id', 'killed'], {
      onSpawn: (child) => {
        const watch = setInterval(() => {
          if (server.batches.some((b) => b.polls >= 3)) {
            clearInterval(watch);
            child.kill('SIGKILL');
          }
        }, 20);
      },
    });
    expect(first.signal).toBe('SIGKILL');
    const before = server.batches.length;
    expect(before).toBeGreaterThan(0);
    options.pollsPerState = 1;
    const resumed = await runCli(['run', '--resume', join(dir, 'runs', 'killed')]);
    expect(resumed.code, resumed.stderr + resumed.stdout).toBe(0);
    expect(resumed.stdout + resumed.stderr).toMatch(/re-attaching to \d+ batch/);
    expect(server.chatRequests()).toHaveLength(0);
    const submitted = server.batches.flatMap((b) => b.customIds);
    expect(new Set(submitted).size).toBe(submitted.length);
    expectSameAsLive(await readRunRecords(join(dir, 'runs', 'killed')), live);
    const summary = JSON.parse(readFileSync(join(dir, 'runs', 'killed', 'summary.json'), 'utf8'));
    expect(summary.cells.map((c: { score: { mean: number | null } }) => c.score.mean)).toEqual(liveMeans);
  }, 240_000);
});
