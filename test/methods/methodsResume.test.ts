import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import { ExtractiveGenerator, ExtractiveParamsSchema } from '../../src/generation/extractive.js';
import { startOpenAIServer, type ChatRequestBody, type OpenAIServer } from '../helpers/openaiServer.js';
import { deterministicResponder, endpointExperimentConfig } from '../experiment/endpointFixtures.js';

const standIn = new ExtractiveGenerator(ExtractiveParamsSchema.parse({}));
const reply = (request: ChatRequestBody) =>
  request.messages.some((m) => /^(?:加分项|减分项)_\d+: 0或1$/m.test(m.content ?? ''))
    ? deterministicResponder(request)
    : standIn.answer(request.messages.map((m) => ({ role: m.role as 'user', content: m.content ?? '' })));

describe('a run of multi-step methods interrupted mid-method', () => {
  const servers: OpenAIServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('keeps only whole answers, and --resume redoes the items in flight: the same records as an uninterrupted run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-method-resume-'));
    const extra = {
      strategies: [{ name: 'ircot', maxSteps: 3 }, { name: 'sure', candidates: 2 }],
      retrieval: { retriever: { name: 'hnsw', index: join(dir, 'index') }, k: [4] },
      scoring: { bootstrapResamples: 100, baseline: 'ircot@4' },
    };
    const controller = new AbortController();
    const interrupting = await startOpenAIServer({
      respond: async (request) => {
        // Stop the run in the middle of the methods' steps, with several items in flight.
        if (interrupting.chatRequests().length === 25) controller.abort();
        return reply(request);
      },
    });
    servers.push(interrupting);
    const file = endpointExperimentConfig(dir, interrupting.url, { retries: 0 }, extra);
    const first = await runExperiment({ config: await loadExperimentConfig(file), runId: 'interrupted', signal: controller.signal });
    expect(first.interrupted).toBe(true);
    const partial = await readRunRecords(first.runDir);
    expect(partial.length).toBeLessThan(16);
    // No partial answer: every record kept is complete and scored.
    expect(partial.every((r) => r.score.status === 'scored' && r.response !== null)).toBe(true);

    const resumed = await runExperiment({ resumeDir: first.runDir });
    expect(resumed.interrupted).toBe(false);
    const clean = await startOpenAIServer({ respond: reply });
    servers.push(clean);
    const reference = await runExperiment({ config: await loadExperimentConfig(endpointExperimentConfig(dir, clean.url, { retries: 0 }, extra)), runId: 'reference' });
    const view = async (runDir: string) => (await readRunRecords(runDir)).map((r) => [r.key, r.response!.text, r.score.score, r.trace.map((s) => s.label).join(' ')]).sort();
    const finished = await view(resumed.runDir);
    expect(finished).toHaveLength(16);
    expect(new Set(finished.map((r) => r[0])).size).toBe(16);
    expect(finished).toEqual(await view(reference.runDir));
  }, 180_000);
});
