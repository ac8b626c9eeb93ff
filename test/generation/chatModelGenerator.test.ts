import { FakeListChatModel } from '@langchain/core/utils/testing';
import { describe, expect, it } from 'vitest';
import { ChatModelGenerator, type ChatModelGeneratorOptions } from '../../src/generation/chatModelGenerator.js';
import { GenerationError } from '../../src/endpoints/generationError.js';

const options = (over: Partial<ChatModelGeneratorOptions> = {}): ChatModelGeneratorOptions => ({
  name: 'fake',
  model: 'fake-model',
  endpoint: `fake://${Math.random()}`,
  concurrency: 2,
  policy: { retries: 2, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1 },
  cacheParams: {},
  hooks: { sleep: async () => {} },
  describe: () => ({ name: 'fake' }),
  ...over,
});

describe('any LangChain chat model as a generator', () => {
  it('answers through the chat model, reasoning split off', async () => {
    const generator = new ChatModelGenerator(new FakeListChatModel({ responses: ['<think>想</think>答案'] }), options());
    expect(await generator.generate([{ role: 'user', content: '问' }])).toMatchObject({ text: '答案', reasoning: '想' });
  });

  it('applies the retry policy to the model’s failures', async () => {
    const model = new FakeListChatModel({ responses: ['好'] });
    let calls = 0;
    const original = model.invoke.bind(model);
    model.invoke = (async (...args: Parameters<typeof model.invoke>) => {
      if (calls++ < 2) throw Object.assign(new Error('overloaded'), { status: 503 });
      return original(...args);
    }) as typeof model.invoke;
    const generator = new ChatModelGenerator(model, options());
    expect((await generator.generate([{ role: 'user', content: '问' }])).text).toBe('好');
    expect(generator.stats).toMatchObject({ requests: 3, retries: 2 });
  });

  it('throws a GenerationError once the retries are spent', async () => {
    const model = new FakeListChatModel({ responses: ['好'] });
    model.invoke = (async () => {
      throw Object.assign(new Error('overloaded'), { status: 503 });
    }) as typeof model.invoke;
    const error = await new ChatModelGenerator(model, options()).generate([{ role: 'user', content: '问' }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GenerationError);
    expect(error).toMatchObject({ reason: 'server-error', attempts: 3 });
  });
});
