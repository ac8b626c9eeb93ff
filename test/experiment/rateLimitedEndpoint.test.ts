import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import { summaryTable } from '../../src/report/table.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { deterministicResponder, endpointExperimentConfig } from './endpointFixtures.js';

/** A grid (model and judge on one endpoint) against a server allowing 600 requests a minute, 10 in any second. */
describe('a grid against an endpoint that enforces 600 requests a minute', () => {
  const servers: OpenAIServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });
  const generator = { concurrency: 8, retries: 8, retryBaseMs: 50, retryMaxMs: 2000, timeoutMs: 10_000 };

  it('with rateLimit.requestsPerMinute: 600 it gets no 429, scores every item, and the cost shows the wait', async () => {
    const server = await startOpenAIServer({ respond: deterministicResponder, rateLimit: { requestsPerMinute: 600, headers: 'none' } });
    servers.push(server);
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-rate-'));
    const file = endpointExperimentConfig(dir, server.url, { ...generator, rateLimit: { requestsPerMinute: 600 } }, { execution: { concurrency: 8 } });
    const result = await runExperiment({ config: await loadExperimentConfig(file), runId: 'paced' });
    const records = await readRunRecords(result.runDir);
    expect(records).toHaveLength(8 * 3);
    expect(records.every((r) => r.score.status === 'scored')).toBe(true);
    expect(server.chatRequests().filter((r) => r.rateLimited)).toHaveLength(0);
    expect(result.summary.cells.some((c) => (c.cost?.rateLimitWaitMs ?? 0) > 0)).toBe(true);
    expect(summaryTable(result.summary)).toMatch(/rate limits \(per answer\): .*0\.00 429s, \d+ ms waiting/);
  }, 120_000);

  it('without the setting it adapts from the x-ratelimit headers and scores every item', async () => {
    const server = await startOpenAIServer({ respond: deterministicResponder, rateLimit: { requestsPerMinute: 600, headers: 'openai' } });
    servers.push(server);
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-rate-adapt-'));
    const file = endpointExperimentConfig(dir, server.url, generator, { execution: { concurrency: 8 } });
    const result = await runExperiment({ config: await loadExperimentConfig(file), runId: 'adapting' });
    const records = await readRunRecords(result.runDir);
    expect(records.every((r) => r.score.status === 'scored')).toBe(true);
    // At most the opening burst, before the first response's headers set the pace.
    expect(server.chatRequests().filter((r) => r.rateLimited).length).toBeLessThanOrEqual(8);
    const counted = records.reduce((n, r) => n + (r.cost?.rateLimited ?? 0), 0);
    // Answers count their own 429s (the judge's calls are not the answer's cost).
    expect(counted).toBeLessThanOrEqual(server.chatRequests().filter((r) => r.rateLimited).length);
  }, 120_000);
});
