import { HumanMessage } from '@langchain/core/messages';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerInBatches } from '../../src/batch/batchRounds.js';
import { ConfigError } from '../../src/errors.js';
import { OpenAIGenerator, OpenAIParamsSchema } from '../../src/generation/openai.js';
import { generators } from '../../src/generation/registry.js';
import { closeResponseCaches, responseCacheKey } from '../../src/generation/responseCache.js';
import { historyQuestion, serverPerTest } from '../helpers/serverPerTest.js';

const question = historyQuestion;
const server = serverPerTest();

const generator = (url: string, params: Record<string, unknown> = {}) =>
  new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: url, model: 'test-model', temperature: 0.7, retries: 0, ...params }));

const bodies = (requests: { body: unknown }[]) => requests.map((r) => r.body as Record<string, unknown>);
const tempDir = () => mkdtempSync(join(tmpdir(), 'hisrag-seed-'));

describe('openai generator: per-sample seeds', () => {
  it('sends seed + sample on every chat request of samples 0..2, even when the calls queue behind each other', async () => {
    const s = await server();
    // Concurrency 1: samples 1 and 2 wait in the endpoint's queue and must still send their own seed.
    const gen = generator(s.url, { seed: 7, concurrency: 1 });
    await Promise.all([2, 0, 1].map((sample) => gen.generate(question, { sample })));
    expect(bodies(s.chatRequests()).map((b) => b.seed).sort()).toEqual([7, 8, 9]);
    // A call without a sample is sample 0.
    await gen.generate([{ role: 'user', content: '另一问' }]);
    expect(bodies(s.chatRequests()).at(-1)!.seed).toBe(7);
  });

  it('sends no seed at all when none is configured', async () => {
    const s = await server();
    const gen = generator(s.url);
    for (const sample of [0, 1, 2]) await gen.generate(question, { sample });
    expect(s.chatRequests()).toHaveLength(3);
    for (const body of bodies(s.chatRequests())) expect(body).not.toHaveProperty('seed');
    await gen.generate(question, { sample: 1, call: { stop: ['。'] } });
    await gen.complete!('前文', { sample: 2 });
    expect(bodies(s.chatRequests()).at(-1)).not.toHaveProperty('seed');
    expect(bodies(s.completionRequests())[0]).not.toHaveProperty('seed');
  });

  it('seeds protocol requests (stop sequences, logprobs), completions and tool-calling turns by their sample', async () => {
    const s = await server();
    const gen = generator(s.url, { seed: 100 });
    await gen.generate(question, { sample: 1, call: { stop: ['。'] } });
    await gen.generate(question, { sample: 2, call: { logprobs: true } });
    await gen.complete!('前文', { sample: 2 });
    await gen.complete!('前文');
    const tools = [{ type: 'function' as const, function: { name: 'search', description: '检索', parameters: { type: 'object', properties: {} } } }];
    await gen.chatTurn([new HumanMessage('查一下')], { tools, sample: 1 });
    const chat = bodies(s.chatRequests());
    expect(chat.map((b) => b.seed)).toEqual([101, 102, 101]);
    expect(chat[0]).toMatchObject({ stop: ['。'] });
    expect(chat[2]!.tools).toHaveLength(1);
    expect(bodies(s.completionRequests()).map((b) => b.seed)).toEqual([102, 100]);
  });

  it('describes the seeding for the run manifest, and says nothing of it when unseeded', () => {
    const seeded = generator('http://127.0.0.1:9/v1', { seed: 7 }).describe();
    expect(seeded).toMatchObject({ seed: 7 });
    expect(seeded.seeding).toMatch(/seed 7 \+ i \(sample 0: 7, sample 1: 8/);
    const plain = generator('http://127.0.0.1:9/v1').describe();
    expect(plain).not.toHaveProperty('seed');
    expect(plain).not.toHaveProperty('seeding');
  });

  it('keys cached answers by the seed: another seed, or none, asks the endpoint again; the same seed replays', async () => {
    const s = await server({ respond: (r) => `答（seed ${String(r.seed)}）` });
    const cache = join(tempDir(), 'cache.sqlite');
    const first = await generator(s.url, { seed: 7, cache }).generate(question);
    expect(first.text).toBe('答（seed 7）');
    const again = await generator(s.url, { seed: 7, cache }).generate(question);
    expect(again).toMatchObject({ text: '答（seed 7）', cached: true });
    expect(s.chatRequests()).toHaveLength(1);

    const other = await generator(s.url, { seed: 8, cache }).generate(question);
    expect(other.text).toBe('答（seed 8）');
    expect(other.cached).toBeFalsy();
    const unseeded = await generator(s.url, { cache }).generate(question);
    expect(unseeded.text).toBe('答（seed undefined）');
    expect(s.chatRequests()).toHaveLength(3);

    // Samples stay apart under one seed; an unseeded model keeps the key it always had.
    const g7 = generator(s.url, { seed: 7 });
    const keys = new Set([g7.cacheKey(question), g7.cacheKey(question, [], 1), g7.cacheKey(question, [], 2), generator(s.url, { seed: 8 }).cacheKey(question), generator(s.url).cacheKey(question)]);
    expect(keys.size).toBe(5);
    const messages = question.map(({ role, content }) => ({ role, content }));
    expect(generator(s.url).cacheKey(question)).toBe(responseCacheKey({ model: 'test-model', messages, params: { temperature: 0.7, extraBody: {} } }));
  });

  it('refuses a seed that is not an integer, naming the field', () => {
    const spec = { name: 'openai', baseURL: 'http://127.0.0.1:9/v1', model: 'm' };
    const refusal = (extra: Record<string, unknown>) => {
      try {
        generators.parse({ ...spec, ...extra }, 'models[0]');
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refusal({ seed: 'x' })).toBe('models[0].seed: expected an integer (sample i sends seed + i)');
    expect(refusal({ seed: 1.5 })).toBe('models[0].seed: expected an integer (sample i sends seed + i)');
    expect(refusal({ seed: 1, extraBody: { seed: 2 } })).toMatch(/^models\[0\]\.seed: set either seed .* or extraBody\.seed .*, not both$/);
    expect(generators.parse({ ...spec, seed: 42 }, 'models[0]')).toMatchObject({ seed: 42 });
    // The constructor refuses the pair too (schemas built from the fields alone lack the check).
    expect(() => new OpenAIGenerator({ ...OpenAIParamsSchema.parse({ baseURL: spec.baseURL, model: spec.model }), seed: 1, extraBody: { seed: 2 } })).toThrow(ConfigError);
  });
});

describe('openai generator: per-sample seeds in batch mode', () => {
  /** Every line of a run's batch input files, by custom_id. */
  function batchLines(dir: string): Map<string, { body: Record<string, unknown> }> {
    const folder = join(dir, 'batches');
    const files = readdirSync(folder).filter((f) => /^r\d+-.*\d\.jsonl$/.test(f));
    const lines = files.flatMap((f) => readFileSync(join(folder, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { custom_id: string; body: Record<string, unknown> }));
    return new Map(lines.map((l) => [l.custom_id, l]));
  }

  async function answerSamples(params: Record<string, unknown>) {
    const s = await server();
    const dir = tempDir();
    const gen = generator(s.url, { cache: join(dir, 'cache.sqlite'), batch: { pollMs: 5 }, ...params });
    const calls = [
      (g: OpenAIGenerator) => g.generate(question, { sample: 0 }),
      (g: OpenAIGenerator) => g.generate(question, { sample: 1 }),
      (g: OpenAIGenerator) => g.generate(question, { sample: 2 }),
      (g: OpenAIGenerator) => g.generate(question, { sample: 1, call: { stop: ['。'] } }),
    ];
    const collect = async () => void (await Promise.all(calls.map((call) => call(gen).catch(() => undefined))));
    await answerInBatches({ queues: [gen.batchQueue!], collect, runDir: dir, log: () => {} });
    // The same calls made live, for the bodies a batch line must equal.
    const live = await server();
    const liveGen = generator(live.url, params);
    for (const call of calls) await call(liveGen);
    return { s, dir, gen, calls, liveBodies: bodies(live.chatRequests()) };
  }

  it('carries seed + sample in every batch line, with the body the live request sends', async () => {
    const { s, dir, gen, calls, liveBodies } = await answerSamples({ seed: 7 });
    const lines = batchLines(dir);
    expect(lines.size).toBe(4);
    const byKey = (sample: number) => lines.get(gen.cacheKey(question, [], sample))!.body;
    expect([0, 1, 2].map((sample) => byKey(sample).seed)).toEqual([7, 8, 9]);
    const stopLine = [...lines.values()].find((l) => l.body.stop)!;
    expect(stopLine.body).toMatchObject({ seed: 8, stop: ['。'] });
    // Each line is the request the live call sends, seed included.
    expect([byKey(0), byKey(1), byKey(2), stopLine.body]).toEqual(liveBodies);
    // Then the run answers every sample from what the batches loaded, with no live call.
    const answers = await Promise.all(calls.map((call) => call(gen)));
    for (const answer of answers) expect(answer.batched).toBe(true);
    expect(s.chatRequests()).toHaveLength(0);
  });

  it('sends no seed in batch lines when none is configured', async () => {
    const { dir, liveBodies } = await answerSamples({});
    const lines = [...batchLines(dir).values()];
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(line.body).not.toHaveProperty('seed');
    for (const body of liveBodies) expect(body).not.toHaveProperty('seed');
  });
});
