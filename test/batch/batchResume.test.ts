import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BatchClient } from '../../src/endpoints/batchClient.js';
import { answerInBatches } from '../../src/batch/batchRounds.js';
import { OpenAIGenerator, OpenAIParamsSchema } from '../../src/generation/openai.js';
import { closeResponseCaches } from '../../src/generation/responseCache.js';
import type { ChatMessage } from '../../src/prompting/types.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';

const questions = Array.from({ length: 12 }, (_, i) => `第${i + 1}问：唐朝的都城在哪里？`);
const messagesOf = (q: string): ChatMessage[] => [{ role: 'user', content: q }];

describe('batch rounds, driven directly', () => {
  const servers: OpenAIServer[] = [];
  afterAll(async () => {
    closeResponseCaches();
    for (const s of servers) await s.close();
  });

  async function setUp(batch: Record<string, unknown>) {
    const server = await startOpenAIServer({ respond: (r) => `答：${r.messages.at(-1)!.content}` });
    servers.push(server);
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-batch-unit-'));
    const generator = new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: server.url, model: 'm', cache: join(dir, 'cache.sqlite'), batch: { pollMs: 5, ...batch } }));
    const collect = async () => {
      await Promise.all(questions.map((q) => generator.generate(messagesOf(q)).catch(() => undefined)));
    };
    return { server, dir, generator, collect, queue: generator.batchQueue! };
  }

  it('splits a round at the per-file request and byte limits, and then answers from the cache with no live call', async () => {
    const { server, dir, generator, collect, queue } = await setUp({ requestsPerFile: 5 });
    const result = await answerInBatches({ queues: [queue], collect, runDir: dir, log: () => {} });
    expect(server.batches.map((b) => b.customIds.length).sort()).toEqual([2, 5, 5]);
    expect(result).toMatchObject({ rounds: 1, submitted: 12, answered: 12, failed: 0 });
    const answer = await generator.generate(messagesOf(questions[3]!));
    expect(answer.text).toBe(`答：${questions[3]}`);
    expect(answer.batched).toBe(true);
    expect(server.chatRequests()).toHaveLength(0);

    const small = await setUp({ bytesPerFile: 700 });
    await answerInBatches({ queues: [small.queue], collect: small.collect, runDir: small.dir, log: () => {} });
    expect(small.server.batches.length).toBeGreaterThan(1);
    expect(small.server.batches.flatMap((b) => b.customIds)).toHaveLength(12);
    for (const b of small.server.batches) expect(readFileSync(join(small.dir, 'batches', `r1-${small.queue.id}-${b.number}.jsonl`)).length).toBeLessThanOrEqual(700);
  });

  it('a run killed after creating a batch but before recording it finds that batch by its input file instead of creating another', async () => {
    const { server, dir, collect, queue, generator } = await setUp({});
    // What the killed run left: the input file, the ledger's `prepared` and `uploaded` lines; the batch exists at the provider.
    const lines = questions.map((q) => ({ custom_id: generator.cacheKey(messagesOf(q)), method: 'POST', url: '/v1/chat/completions', body: { model: 'm', messages: messagesOf(q), temperature: 0, stream: false } }));
    mkdirSync(join(dir, 'batches'), { recursive: true });
    const file = `r1-${queue.id}-1.jsonl`;
    writeFileSync(join(dir, 'batches', file), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const client = new BatchClient({ baseURL: server.url, headers: {} });
    const fileId = await client.upload(join(dir, 'batches', file));
    await client.create(fileId, '24h', {});
    const ledger = [
      { event: 'prepared', submission: `r1-${queue.id}-1`, queue: queue.id, model: 'm', round: 1, file, customIds: lines.map((l) => l.custom_id) },
      { event: 'uploaded', submission: `r1-${queue.id}-1`, fileId },
    ];
    writeFileSync(join(dir, 'batches', 'ledger.jsonl'), ledger.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const log: string[] = [];
    const result = await answerInBatches({ queues: [queue], collect, runDir: dir, log: (l) => log.push(l) });
    expect(server.batches).toHaveLength(1);
    expect(result.rounds).toBe(0);
    expect(log.join('\n')).toMatch(/re-attaching to 1 batch/);
    const events = readFileSync(join(dir, 'batches', 'ledger.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(events.map((e) => e.event)).toEqual(['prepared', 'uploaded', 'created', 'finished']);
    expect(events[3].answered).toHaveLength(12);
  });

  it('a completion answered live while collecting is still a paid call when a resumed run replays it from the cache (the ledger\'s live event)', async () => {
    const { server, dir, generator, queue } = await setUp({});
    const prompt = '问：唐朝的都城在哪里？\n答：';
    const collectWith = (g: OpenAIGenerator, seen: { cached?: boolean }[]) => async () => {
      // The Batch API takes chat requests: the completion goes live, the chat request into the batch.
      seen.push(await g.complete!(prompt));
      await g.generate(messagesOf(questions[0]!)).catch(() => undefined);
    };
    const first: { cached?: boolean }[] = [];
    await answerInBatches({ queues: [queue], collect: collectWith(generator, first), runDir: dir, log: () => {} });
    expect(server.completionRequests()).toHaveLength(1);
    // Round 1 called it live; round 2 (the item run again once its batch answered) replayed it, still paid.
    expect(first.map((r) => r.cached ?? false)).toEqual([false, false]);
    const ledger = readFileSync(join(dir, 'batches', 'ledger.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; keys?: string[] });
    expect(ledger.filter((e) => e.event === 'live').flatMap((e) => e.keys)).toHaveLength(1);

    // A new process on the same run (a resume): the completion comes from the cache, and counts as the call it was.
    closeResponseCaches();
    const again = new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: server.url, model: 'm', cache: join(dir, 'cache.sqlite'), batch: { pollMs: 5 } }));
    const resumed: { cached?: boolean }[] = [];
    await answerInBatches({ queues: [again.batchQueue!], collect: collectWith(again, resumed), runDir: dir, log: () => {} });
    expect(server.completionRequests()).toHaveLength(1);
    expect(resumed.map((r) => r.cached ?? false)).toEqual([false]);
  });
});
