import { describe, expect, it } from 'vitest';
import { createLlmExtractor } from '../../../src/scoring/extractors/llm.js';
import { extractionMessages } from '../../../src/scoring/extractors/prompts.js';
import { scriptedGenerator } from '../fakeGenerator.js';

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
});
