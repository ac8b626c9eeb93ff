import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import { estimateRun } from '../../src/app/dryRun.js';
import { closeResponseCaches } from '../../src/generation/responseCache.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { startOpenAIServer, type ChatRequestBody, type OpenAIServer } from '../helpers/openaiServer.js';
import { deterministicResponder, endpointExperimentConfig } from './endpointFixtures.js';

// A model at temperature > 0 behind the local OpenAI-compatible server: the same request answered
// differently each time (a counter in the answer), so distinct samples only come from distinct calls.
let answered = 0;
const samplingResponder = (request: ChatRequestBody) => {
  const reply = deterministicResponder(request);
  return request.model === 'stand-in-llm' ? `${reply}（第${++answered}答）` : reply;
};
const modelCalls = (server: OpenAIServer) => server.chatRequests().filter((r) => (r.body as ChatRequestBody).model === 'stand-in-llm').length;

describe('repeated samples against an OpenAI-compatible endpoint', () => {
  let server: OpenAIServer;
  let dir: string;
  let cache: string;
  let single: RunItemRecord[];
  let sampled: RunItemRecord[];
  let callsForSingle: number;
  let callsForSampled: number;

  beforeAll(async () => {
    server = await startOpenAIServer({ respond: samplingResponder });
    dir = mkdtempSync(join(tmpdir(), 'hisrag-samples-'));
    cache = join(dir, 'responses.sqlite');
    const generator = { temperature: 0.7, cache, retries: 0 };
    // A run with one sample per question fills the cache; the same grid at 3 samples reuses those answers as sample 0.
    const first = endpointExperimentConfig(dir, server.url, generator);
    single = await readRunRecords((await runExperiment({ config: await loadExperimentConfig(first), configFile: first, runId: 'single' })).runDir);
    callsForSingle = modelCalls(server);
    const again = endpointExperimentConfig(dir, server.url, generator, { samples: 3, scoring: { bootstrapResamples: 200, reducer: 'mean' } });
    const result = await runExperiment({ config: await loadExperimentConfig(again), configFile: again, runId: 'sampled' });
    sampled = await readRunRecords(result.runDir);
    callsForSampled = modelCalls(server) - callsForSingle;
  }, 240_000);

  afterAll(async () => {
    closeResponseCaches();
    await server?.close();
  });

  it('answers every question × condition n times, each record carrying its sample', () => {
    expect(single).toHaveLength(8 * 3);
    expect(sampled).toHaveLength(8 * 3 * 3);
    expect(new Set(sampled.map((r) => r.key)).size).toBe(sampled.length);
    expect(sampled.filter((r) => r.sample === 0)).toHaveLength(24);
    expect(sampled.filter((r) => r.sample === 2)).toHaveLength(24);
    // Sample 0 keeps the key a one-sample run has, so runs and caches from before stay valid.
    expect(new Set(sampled.filter((r) => r.sample === 0).map((r) => r.key))).toEqual(new Set(single.map((r) => r.key)));
  });

  it('sample 0 is answered from the cache of the one-sample run; the others are distinct calls with distinct answers', () => {
    expect(callsForSingle).toBe(24);
    expect(callsForSampled).toBe(24 * 2);
    const bySample = (s: number) => sampled.filter((r) => r.sample === s);
    expect(bySample(0).every((r) => r.response?.cached === true)).toBe(true);
    expect(bySample(1).some((r) => r.response?.cached)).toBe(false);
    const texts = new Map<string, Set<string>>();
    for (const r of sampled) {
      const key = `${r.condition}|${r.itemId}`;
      (texts.get(key) ?? texts.set(key, new Set()).get(key)!).add(r.response!.text);
    }
    for (const set of texts.values()) expect(set.size).toBe(3);
  });

  it('resuming the sampled run asks for nothing more', async () => {
    const before = modelCalls(server);
    const resumed = await runExperiment({ resumeDir: join(dir, 'runs', 'sampled') });
    expect(resumed.newItems).toBe(0);
    expect(modelCalls(server)).toBe(before);
    expect(resumed.summary.cells[0]!.sampling?.samplesPerQuestion).toBe(3);
  });

  it('the dry run counts every sample: answers, calls and tokens × n, and which samples are cached', async () => {
    const config = await loadExperimentConfig(endpointExperimentConfig(dir, server.url, { temperature: 0.7, cache, retries: 0 }, { samples: 4 }));
    const plan = await estimateRun(config);
    const closedBook = plan.cells.find((c) => c.condition === 'closed-book')!;
    expect(closedBook.answers).toBe(8 * 4);
    expect(closedBook.generationCalls).toEqual({ min: 32, max: 32 });
    // Samples 0–2 of every question are in the cache; sample 3 is not.
    expect(closedBook.cachedCalls).toBe(8 * 3);
    const one = (await estimateRun(await loadExperimentConfig(endpointExperimentConfig(dir, server.url, { temperature: 0.7, cache, retries: 0 })))).cells.find((c) => c.condition === 'closed-book')!;
    expect(closedBook.promptTokens.min).toBe(4 * one.promptTokens.min);
  }, 120_000);
});
