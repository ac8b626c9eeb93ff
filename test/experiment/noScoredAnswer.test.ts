import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { ServiceUnavailableError } from '../../src/errors.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { endpointExperimentConfig } from './endpointFixtures.js';

describe('a run in which no answer could be scored', () => {
  let server: OpenAIServer | undefined;
  afterAll(async () => {
    await server?.close();
  });

  it('fails (exit 3) with the cause and counts scored and failed answers, instead of passing for a result', async () => {
    // Every chat request gets an unusable reply: each answer fails, none is scored.
    server = await startOpenAIServer({ faults: { rate: 1, kinds: ['malformed'], seed: 1 } });
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-none-scored-'));
    const file = endpointExperimentConfig(dir, server.url, { retries: 0 }, { strategies: ['closed-book'], benchmark: { name: 'prohist', file: join(import.meta.dirname, '../../experiments/data/demo-prohist.json'), limit: 3 } });
    const error = await runExperiment({ config: await loadExperimentConfig(file), runId: 'none' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as Error).message).toMatch(/^no answer could be scored: all 3 answers failed \(stand-in · closed-book: 3 failed/);
    expect((error as Error).message).toContain('3/3 answers are saved in');
    expect((error as Error).message).toContain('(0 scored, 3 failed, answered again on resume)');
  }, 120_000);
});
