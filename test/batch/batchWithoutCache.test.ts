import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OpenAIGenerator, OpenAIParamsSchema, defaultBatchCache } from '../../src/generation/openai.js';
import { closeResponseCaches } from '../../src/generation/responseCache.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { runCli } from '../helpers/runCli.js';
import { deterministicResponder, endpointExperimentConfig } from '../experiment/endpointFixtures.js';

describe('batch: true without cache:', () => {
  const servers: OpenAIServer[] = [];
  afterAll(async () => {
    closeResponseCaches();
    for (const server of servers) await server.close().catch(() => {});
  });

  it('chooses .cache/responses-<model>.sqlite for a model without one', () => {
    const params = OpenAIParamsSchema.parse({ baseURL: 'http://127.0.0.1:9/v1', model: 'Qwen/Qwen2.5-7B-Instruct', batch: true });
    expect(params.cache).toBeUndefined();
    expect(defaultBatchCache('Qwen/Qwen2.5-7B-Instruct')).toBe(join(process.cwd(), '.cache', 'responses-Qwen-Qwen2.5-7B-Instruct.sqlite'));
    // (The generator that opens the chosen file is run by the CLI below, in a folder of its own.)
    // A model that names its cache keeps it; a live model without one gets none.
    expect(new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', batch: true, cache: join(tmpdir(), 'own.sqlite') })).describe()).not.toHaveProperty('cacheChosen');
    expect(new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: 'http://127.0.0.1:9/v1', model: 'm' })).describe()).not.toHaveProperty('cache');
  });

  it('runs a grid through the Batch API with no cache: given, saying where the answers went', async () => {
    const server = await startOpenAIServer({ respond: deterministicResponder, batch: { pollsPerState: 1 } });
    servers.push(server);
    // The CLI runs in a folder of its own: the chosen cache lies under its .cache/.
    const cwd = mkdtempSync(join(tmpdir(), 'hisrag-batch-nocache-'));
    const config = endpointExperimentConfig(cwd, server.url, { concurrency: 4, retries: 1, retryBaseMs: 5, timeoutMs: 5000, batch: { pollMs: 10 } });
    const run = await runCli(['run', config, '--run-id', 'batch', '--no-progress'], { cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(server.chatRequests()).toHaveLength(0);
    expect(server.batches.length).toBeGreaterThanOrEqual(2);
    const modelCache = join(cwd, '.cache', 'responses-stand-in-llm.sqlite');
    const judgeCache = join(cwd, '.cache', 'responses-stand-in-judge.sqlite');
    expect(run.stdout).toContain(`batch: stand-in-llm answers go into the response cache ${modelCache} (no cache: given; batch mode chose it)`);
    expect(run.stdout).toContain(`batch: stand-in-judge answers go into the response cache ${judgeCache} (no cache: given; batch mode chose it)`);
    expect(existsSync(modelCache) && existsSync(judgeCache)).toBe(true);
    const runDir = join(cwd, 'runs', 'batch');
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
    expect(manifest.complete).toBe(true);
    expect(manifest.components.generators['stand-in']).toMatchObject({ batch: true, cache: modelCache });
    expect(String(manifest.components.generators['stand-in'].cacheChosen)).toContain('batch mode without cache:');
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as { totals: { items: number; scored: number } };
    expect(summary.totals.scored).toBe(summary.totals.items);
  }, 180_000);
});
