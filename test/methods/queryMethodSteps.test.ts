import { describe, expect, it } from 'vitest';
import { ExtractiveGenerator, ExtractiveParamsSchema } from '../../src/generation/extractive.js';
import { cragLabel, parseGrade } from '../../src/methods/crag.js';
import { parseQuery } from '../../src/methods/queryRewrite.js';
import { stepMessages } from '../../src/methods/prompts.js';
import { methods } from '../../src/methods/registry.js';
import { gradePrompt } from '../../src/methods/templates/crag.js';
import { hypothesisPrompt } from '../../src/methods/templates/hyde.js';
import { rewritePrompt } from '../../src/methods/templates/queryRewrite.js';
import { queriesPrompt } from '../../src/methods/templates/ragFusion.js';
import { outputKindOf } from '../../src/prompting/taskFormat.js';

const standIn = new ExtractiveGenerator(ExtractiveParamsSchema.parse({}));
const reply = (messages: { role: string; content: string }[]) => standIn.answer(messages as never);
const QUESTION = '殿试由谁主持？殿试成为定制始于何时、起因是什么？';

describe('the query-side and corrective steps', () => {
  it('each step\'s prompt asks for its own kind of output (rewrite and queries told apart)', () => {
    expect(outputKindOf(stepMessages(hypothesisPrompt, { question: QUESTION, variant: '' })[1]!.content)).toBe('hypothesis');
    expect(outputKindOf(stepMessages(rewritePrompt, { question: QUESTION })[1]!.content)).toBe('rewrite');
    expect(outputKindOf(stepMessages(queriesPrompt, { question: QUESTION, n: 3 })[1]!.content)).toBe('queries');
    expect(outputKindOf(stepMessages(gradePrompt, { question: QUESTION, context: '【资料1】x\n正文\n【资料结束】' })[1]!.content)).toBe('grade');
  });

  it('the stand-in answers each by a lexical rule: a statement, a query, numbered queries, a 0–10 grade', () => {
    const hypothesis = reply(stepMessages(hypothesisPrompt, { question: QUESTION, variant: '' }));
    expect(hypothesis).toBe('殿试由主持，殿试成为定制始于，起因是。');
    const query = reply(stepMessages(rewritePrompt, { question: QUESTION }));
    expect(query).toBe('殿试由主持 殿试成为定制始于 起因是');
    expect(parseQuery(query)).toBe(query);
    expect(reply(stepMessages(queriesPrompt, { question: QUESTION, n: 2 }))).toBe('（1）殿试由主持 殿试成为定制始于 起因是\n（2）殿试由主持');
    const block = (text: string) => `【资料1】《殿试》\n${text}\n【资料结束】`;
    expect(Number(reply(stepMessages(gradePrompt, { question: QUESTION, context: block('殿试由皇帝主持，宋开宝六年殿试成为定制，起因是取士不公。') })))).toBeGreaterThanOrEqual(6);
    expect(reply(stepMessages(gradePrompt, { question: QUESTION, context: block('唐代设国子监。') }))).toBe('0');
  });

  it('parses replies: a grade out of ten, a query line, and labels by the thresholds', () => {
    expect(parseGrade('相关度：8')).toBe(0.8);
    expect(parseGrade('<think>想想 3 个</think>１０')).toBe(1);
    expect(parseGrade('无法判断')).toBeNull();
    expect(parseQuery('检索式：宋代 殿试 定制\n说明……')).toBe('宋代 殿试 定制');
    expect(parseQuery('（1）科举 废除')).toBe('科举 废除');
    expect(cragLabel([0.1, 0.7], 0.6, 0.2)).toBe('correct');
    expect(cragLabel([0.1, 0.0], 0.6, 0.2)).toBe('incorrect');
    expect(cragLabel([0.1, 0.3], 0.6, 0.2)).toBe('ambiguous');
    expect(cragLabel([], 0.6, 0.2)).toBe('incorrect');
  });

  it('rejects configs the methods cannot run, naming the field', () => {
    expect(() => methods.parse({ name: 'crag' }, 'strategies[3]')).toThrow(/strategies\[3\].*fallback/);
    expect(() => methods.parse({ name: 'crag', fallback: { name: 'bm25', index: 'x' }, upper: 0.2, lower: 0.5 }, 'strategies[3]')).toThrow(/lower must not exceed upper/);
    expect(() => methods.parse({ name: 'compress', scorer: { model: 'm' }, ratio: 0.5, budgetK: 20 }, 'strategies[4]')).toThrow(/exactly one of ratio/);
    expect(() => methods.parse({ name: 'compress', scorer: { model: 'm' } }, 'strategies[4]')).toThrow(/exactly one of ratio/);
    expect(() => methods.parse({ name: 'rag-fusion', queries: 0 }, 'strategies[2]')).toThrow(/strategies\[2\].*queries/);
  });
});
