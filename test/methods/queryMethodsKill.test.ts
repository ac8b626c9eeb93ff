import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delayed, expectSameAsUninterrupted, killUntilFinished } from '../helpers/killRun.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { runCli } from '../helpers/runCli.js';
import { queryMethodResponder, queryMethodsEndpointConfig } from './queryMethodsEndpoint.js';

const TOTAL = 4 * 6;

describe('kill -9 of the CLI in the middle of the query-side methods, then --resume', () => {
  let server: OpenAIServer;
  let config: string;
  let dir: string;

  beforeAll(async () => {
    server = await startOpenAIServer({
      // Slow enough that kills land between a method's steps.
      respond: delayed(30, queryMethodResponder),
    });
    dir = mkdtempSync(join(tmpdir(), 'hisrag-query-kill-'));
    config = queryMethodsEndpointConfig(dir, server.url, { retries: 2, retryBaseMs: 2 }, {
      benchmark: { name: 'prohist', file: join(process.cwd(), 'experiments/data/demo-prohist.json'), limit: 4 },
      execution: { concurrency: 2 },
    });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it('loses and repeats no answer, and ends with the uninterrupted run\'s summary', async () => {
    const full = await runCli(['run', config, '--run-id', 'uninterrupted', '--no-progress']);
    expect(full.code, full.stderr).toBe(0);

    const runDir = join(dir, 'runs', 'interrupted');
    // Kill after 3, then 9, then 15 answers; the last session finishes.
    const targets = [3, 9, 15];
    const { kills, finished } = await killUntilFinished({
      first: ['run', config, '--run-id', 'interrupted', '--no-progress'],
      runDir,
      attempts: 6,
      // 45 ms later: the kill lands while the next answers are half-way through their steps.
      plan: (attempt) => (targets[attempt] === undefined ? undefined : { at: targets[attempt]!, delayMs: 45 }),
    });
    expect(kills).toBeGreaterThanOrEqual(2);
    expect(finished).toBe(true);
    expectSameAsUninterrupted(runDir, join(dir, 'runs', 'uninterrupted'), TOTAL);
  }, 500_000);
});
