import { describe, expect, it } from 'vitest';
import { createLexicalJudge } from '../../../src/scoring/judges/lexical.js';
import { judges } from '../../../src/scoring/judges/registry.js';
import { parseRubric } from '../../../src/scoring/rubric/parseRubric.js';

const rubricText = '加分项：\n1、指出科举制度始于隋朝{+5}\n2、说明殿试由皇帝亲自主持{+5}\n减分项：\n1、出现史实错误{-5}';
const ask = (answer: string, threshold?: number) =>
  createLexicalJudge({ threshold }).judge({ question: 'q', answer, rubricText, rubricItems: parseRubric(rubricText) });

describe('lexical judge', () => {
  it('hits a bonus item whose content appears in the answer', async () => {
    const outcome = await ask('科举制度始于隋朝，至唐而完备。');
    expect(outcome).toMatchObject({ ok: true, verdicts: { 加分项_1: 1, 加分项_2: 0 } });
  });

  it('does not hit an item whose content is absent', async () => {
    expect(await ask('秦始皇统一六国。')).toMatchObject({ verdicts: { 加分项_1: 0, 加分项_2: 0 } });
  });

  it('never hits a deduction item', async () => {
    expect(await ask('出现史实错误。科举制度始于隋朝。')).toMatchObject({ verdicts: { 减分项_1: 0 } });
  });

  it('needs more of the content at a higher threshold', async () => {
    expect(await ask('殿试由皇帝主持。', 0.5)).toMatchObject({ verdicts: { 加分项_2: 1 } });
    expect(await ask('殿试由皇帝主持。', 0.95)).toMatchObject({ verdicts: { 加分项_2: 0 } });
  });

  it('is registered with a validated threshold', async () => {
    expect(judges.names()).toEqual(['lexical', 'lexical-overcredit', 'llm']);
    expect((await judges.create({ name: 'lexical' }, undefined)).model).toBe('lexical@0.5');
    expect(() => judges.parse({ name: 'lexical', threshold: 2 })).toThrow(/judge\.threshold/);
  });

  it('rejects an llm judge spec without a generator', () => {
    expect(() => judges.parse({ name: 'llm' })).toThrow(/judge\.generator/);
  });
});
