import { describe, expect, it } from 'vitest';
import { createLlmExtractor } from '../../../src/scoring/extractors/llm.js';
import { extractionMessages } from '../../../src/scoring/extractors/prompts.js';
import { scriptedGenerator } from '../fakeGenerator.js';
import { OpenAIGenerator, OpenAIParamsSchema } from '../../../src/generation/openai.js';
import { scoreItem } from '../../../src/scoring/scoreItem.js';
import { startOpenAIServer } from '../../helpers/openaiServer.js';

describe('LLM extractor', () => {
  it('writes a prompt that names the answer type format', () => {
    const user = extractionMessages({ question: '几天？', response: '三天', answerType: 'Int' })[1]!.content;
    expect(user).toContain('阿拉伯数字');
    expect(user).toContain('三天');
  });

  it('normalises the output to the type format', async () => {
    expect(await createLlmExtractor(scriptedGenerator(['答案：三万二千'])).extract({ question: 'q', response: 'r', answerType: 'Int' })).toBe('32000');
    expect(await createLlmExtractor(scriptedGenerator(['选项 b'.toUpperCase()])).extract({ question: 'q', response: 'r', answerType: 'Enum' })).toBe('B');
    expect(await createLlmExtractor(scriptedGenerator(['```\n["甲", "乙"]\n```'])).extract({ question: 'q', response: 'r', answerType: 'List' })).toBe('["甲","乙"]');
  });

  it('retries a failing call and then throws', async () => {
    const generator = scriptedGenerator([new Error('HTTP 503')]);
    await expect(createLlmExtractor(generator, { retries: 1 }).extract({ question: 'q', response: 'r', answerType: 'Str' })).rejects.toThrow(/HTTP 503/);
    expect(generator.calls).toHaveLength(2);
  });

  it('takes an endpoint that only returns empty completions as an extraction failure, never as an empty answer scored 0', async () => {
    const server = await startOpenAIServer({ faults: { rate: 1, kinds: ['empty'], seed: 1 } });
    try {
      const generator = new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: server.url, model: 'extractor', retries: 1, retryBaseMs: 1 }));
      const extractor = createLlmExtractor(generator, { retries: 1 });
      await expect(extractor.extract({ question: 'q', response: '三天', answerType: 'Int' })).rejects.toThrow(/empty completion on all 2 attempts/);
      const score = await scoreItem(
        { id: 'x', benchmark: 'longhisdoc', kind: 'longhisdoc', question: '几天？', category: 'Single Page', answerType: 'Int', answer: ['3', '三'], meta: {} },
        '三天',
        { extractor },
      );
      expect(score).toMatchObject({ status: 'judge_failed', score: null });
      expect(score.error).toMatch(/answer extraction failed/);
    } finally {
      await server.close();
    }
  });
});
