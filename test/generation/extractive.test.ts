import { describe, expect, it } from 'vitest';
import { ExtractiveGenerator, ExtractiveParamsSchema } from '../../src/generation/extractive.js';
import { characterBigrams } from '../../src/generation/lexicalOverlap.js';
import { formatContextBlock } from '../../src/prompting/contextBlock.js';
import type { ChatMessage } from '../../src/prompting/types.js';

const extractive = (params: Record<string, unknown> = {}) => new ExtractiveGenerator(ExtractiveParamsSchema.parse(params));

function ragPrompt(question: string, passages: string[]): ChatMessage[] {
  const context = formatContextBlock(passages.map((text, i) => ({ title: `文献${i + 1}`, text })));
  return [
    { role: 'system', content: '你是历史学家。' },
    { role: 'user', content: `请根据资料回答。\n\n${context}\n\n【问题】${question}\n\n【要求】简洁作答。` },
  ];
}

describe('extractive generator', () => {
  it('answers with the context sentence that overlaps the question most', async () => {
    const messages = ragPrompt('王安石变法开始于哪一年？', [
      '唐太宗在位期间开创贞观之治。长安是唐朝都城。',
      '宋神宗任用王安石。王安石变法开始于熙宁二年，即1069年。',
    ]);
    const result = await extractive().generate(messages);
    expect(result.text.startsWith('王安石变法开始于熙宁二年')).toBe(true);
    expect(result.text).not.toContain('贞观');
  });

  it('declines in Chinese without context (closed book)', async () => {
    const result = await extractive().generate([{ role: 'user', content: '【问题】王安石变法开始于哪一年？' }]);
    expect(result.text).toBe('无法回答');
  });

  it('declines in English for an English question without context', async () => {
    const result = await extractive().generate([{ role: 'user', content: 'When did the reform start?' }]);
    expect(result.text).toBe('I cannot answer');
  });

  it('declines when no context sentence overlaps the question', async () => {
    const result = await extractive().generate(ragPrompt('王安石变法开始于哪一年？', ['长城始建于春秋战国。']));
    expect(result.text).toBe('无法回答');
  });

  it('keeps the answer within the length budget', async () => {
    const long = '王安石变法'.repeat(30) + '。';
    const result = await extractive({ maxChars: 40 }).generate(ragPrompt('王安石变法', [long, '王安石变法又称熙宁变法。']));
    expect(result.text.length).toBeLessThanOrEqual(40);
    expect(result.text.length).toBeGreaterThan(0);
  });

  it('matches traditional-character context against a simplified question', async () => {
    const result = await extractive().generate(ragPrompt('王安石变法开始于哪一年？', ['王安石變法開始於熙寧二年。']));
    expect(result.text).toBe('王安石變法開始於熙寧二年。');
  });

  it('counts bigrams without punctuation or spaces', () => {
    expect([...characterBigrams('甲乙，丙 丁')]).toEqual(['甲乙', '乙丙', '丙丁']);
  });
});

describe('extractive generator on multiple choice', () => {
  const question = '下列关于明清科举的说法，正确的是（  ）。\nA. 乡试在省城贡院举行\nB. 会试由吏部主持\nC. 殿试由皇帝主持';
  const withBoxed = (messages: ChatMessage[]) =>
    messages.map((m) => (m.role === 'user' ? { ...m, content: `${m.content}\n请用 \\boxed{} 写出选项字母。` } : m));

  it('answers with the letters of the options the context supports', async () => {
    const messages = withBoxed(ragPrompt(question, ['明清时乡试在省城贡院举行，三年一次。殿试由皇帝主持。', '会试由礼部主持。']));
    expect((await extractive().generate(messages)).text).toBe('\\boxed{AC}');
  });

  it('still declines a multiple-choice question without context', async () => {
    const messages = withBoxed([{ role: 'user', content: `【问题】${question}` }]);
    expect((await extractive().generate(messages)).text).toBe('无法回答');
  });
});
