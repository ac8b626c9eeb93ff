import { describe, expect, it } from 'vitest';
import type { BenchmarkItem } from '../../src/benchmarks/types.js';
import { createLexicalJudge } from '../../src/scoring/judges/lexical.js';
import { createLlmJudge } from '../../src/scoring/judges/llm.js';
import { scoreItem } from '../../src/scoring/scoreItem.js';
import type { Judge } from '../../src/scoring/types.js';
import { scriptedGenerator } from './fakeGenerator.js';

const rubricItem: BenchmarkItem = {
  id: 'p1',
  benchmark: 'prohist',
  kind: 'rubric',
  question: '简述科举制度的起源。',
  category: '简答题',
  task: 'T2',
  rubrics: '加分项：\n1、指出科举制度始于隋朝{+5}\n2、说明殿试由皇帝亲自主持{+3}\n减分项：\n1、出现史实错误{-5}',
  referenceAnswer: '科举制度始于隋朝，殿试由皇帝亲自主持。',
  meta: {},
};

/** A judge that must not be called. */
const forbiddenJudge: Judge = {
  name: 'forbidden',
  model: 'none',
  judge: () => {
    throw new Error('the judge was called');
  },
};

describe('scoreItem: rubric items', () => {
  it('scores RS from the judge verdicts', async () => {
    const judge = createLlmJudge(scriptedGenerator(['加分项_1: 1\n加分项_2: 0\n减分项_1: 0']));
    const result = await scoreItem(rubricItem, '科举制度始于隋朝。', { judge });
    expect(result).toMatchObject({ status: 'scored', metric: 'rs', score: 62, scoreRaw: 62.5, verdicts: { 加分项_1: 1 } });
  });

  it('scores an empty answer 0 without calling the judge', async () => {
    expect(await scoreItem(rubricItem, '  ', { judge: forbiddenJudge })).toMatchObject({ score: 0, rule: 'empty-answer' });
  });

  it('treats an answer that is only a reasoning block as empty', async () => {
    expect(await scoreItem(rubricItem, '<think>科举制度始于隋朝</think>\n', { judge: forbiddenJudge })).toMatchObject({
      score: 0,
      rule: 'empty-answer',
    });
  });

  it('drops the reasoning block before judging', async () => {
    const seen: string[] = [];
    const judge: Judge = {
      name: 'spy',
      model: 'spy',
      judge: async (request) => {
        seen.push(request.answer);
        return { ok: true, verdicts: { 加分项_1: 1, 加分项_2: 1, 减分项_1: 0 }, raw: '', strayLines: 0, attempts: 1 };
      },
    };
    await scoreItem(rubricItem, '<think>草稿</think>答案正文', { judge });
    expect(seen).toEqual(['答案正文']);
  });

  it('scores a T4 essay over its length constraint 0 without calling the judge', async () => {
    const essay = { ...rubricItem, task: 'T4', category: '八股文', lengthConstraint: 10 };
    expect(await scoreItem(essay, '科举制度始于隋朝，殿试由皇帝主持', { judge: forbiddenJudge })).toMatchObject({
      score: 0,
      rule: 'over-length',
    });
  });

  it('counts only CJK characters against the length constraint', async () => {
    const essay = { ...rubricItem, task: 'T4', lengthConstraint: 8 };
    const result = await scoreItem(essay, '科举制度始于隋朝 (605 AD)。', { judge: createLexicalJudge() });
    expect(result.rule).toBeUndefined();
    expect(result.score).toBe(62);
  });

  it('records a judge failure with its raw output instead of a score', async () => {
    const judge = createLlmJudge(scriptedGenerator(['无法评分']), { retries: 1 });
    const result = await scoreItem(rubricItem, '科举制度始于隋朝。', { judge });
    expect(result).toMatchObject({ status: 'judge_failed', score: null, scoreRaw: null, judgeRaw: '无法评分' });
    expect(result.error).toContain('加分项_1');
  });

  it('fails an answer whose verdicts miss an item by default, and counts the item as 0 in reference mode', async () => {
    const judge: Judge = {
      name: 'partial',
      model: 'partial',
      judge: async () => ({ ok: true, verdicts: { 加分项_1: 1 }, raw: '加分项_1: 1', strayLines: 0, attempts: 1 }),
    };
    expect(await scoreItem(rubricItem, '答案', { judge })).toMatchObject({ status: 'judge_failed' });
    expect(await scoreItem(rubricItem, '答案', { judge, compat: 'reference' })).toMatchObject({ status: 'scored', score: 62 });
  });

  it('adds BLEU-4 and ROUGE-L against the reference answer', async () => {
    const result = await scoreItem(rubricItem, rubricItem.referenceAnswer!, { judge: createLexicalJudge() });
    expect(result.extra?.bleu4).toBeCloseTo(100);
    expect(result.extra?.rougeL).toBeCloseTo(100);
  });

  it('adds BERTScore when token vectors are given', async () => {
    const tokenVectors = async (text: string) => [...text].map((ch) => [ch.charCodeAt(0) % 7, 1]);
    const result = await scoreItem(rubricItem, rubricItem.referenceAnswer!, { judge: createLexicalJudge(), tokenVectors });
    expect(result.extra?.bertScoreF1).toBeCloseTo(1);
  });

  it('skips text metrics when asked', async () => {
    const result = await scoreItem(rubricItem, '答案', { judge: createLexicalJudge(), textMetrics: false });
    expect(result.extra?.bleu4).toBeUndefined();
  });

  it('requires a judge for a rubric item that reaches judging', async () => {
    await expect(scoreItem(rubricItem, '答案')).rejects.toThrow(/needs a judge/);
  });
});

describe('scoreItem: MCQ items', () => {
  const mcq: BenchmarkItem = { id: 'm1', benchmark: 'prohist', kind: 'mcq', question: '选择', category: '选择题', answer: 'ADEF', meta: {} };

  it('scores the exact set 100, a strict subset 60, anything else 0', async () => {
    expect(await scoreItem(mcq, '答案 \\boxed{ADEF}')).toMatchObject({ score: 100, extracted: 'ADEF', rule: 'mcq' });
    expect(await scoreItem(mcq, '答案 \\boxed{AD}')).toMatchObject({ score: 60 });
    expect(await scoreItem(mcq, '答案 \\boxed{ADB}')).toMatchObject({ score: 0 });
  });

  it('scores an empty answer 0', async () => {
    expect(await scoreItem(mcq, '')).toMatchObject({ score: 0, rule: 'empty-answer' });
  });
});

describe('scoreItem: LongHisDoc items', () => {
  const item = (answerType: BenchmarkItem['answerType'], answer: BenchmarkItem['answer']): BenchmarkItem => ({
    id: 'l1',
    benchmark: 'longhisdoc',
    kind: 'longhisdoc',
    question: '问题',
    category: 'Single Page',
    answerType,
    answer,
    meta: {},
  });

  it('extracts with the rules when no extractor is given and scores accuracy × 100', async () => {
    expect(await scoreItem(item('Int', ['32450', '三万二千四百五十']), '共有三万二千四百五十人。')).toMatchObject({
      metric: 'accuracy',
      score: 100,
      extracted: '32450',
    });
  });

  it('uses the given extractor', async () => {
    const extractor = { name: 'fixed', extract: async () => '赵庄姬' };
    expect(await scoreItem(item('Str', '赵庄姬'), '书中说是某位夫人', { extractor })).toMatchObject({ score: 100 });
  });

  it('records a failed extraction as a failure, not a 0', async () => {
    const extractor = {
      name: 'broken',
      extract: async () => {
        throw new Error('timeout');
      },
    };
    expect(await scoreItem(item('Str', '赵庄姬'), '赵庄姬', { extractor })).toMatchObject({ status: 'judge_failed', score: null });
  });

  it('scores an empty answer 0 without calling the extractor', async () => {
    const extractor = {
      name: 'forbidden',
      extract: async (): Promise<string> => {
        throw new Error('the extractor was called');
      },
    };
    expect(await scoreItem(item('None', '无法回答'), '<think>无法回答</think>', { extractor })).toMatchObject({ score: 0, rule: 'empty-answer' });
  });

  it('converts traditional characters before comparing', async () => {
    expect(await scoreItem(item('Str', '陆行直'), '陸行直')).toMatchObject({ score: 100 });
  });
});

describe('scoreItem: reference items', () => {
  it('scores character ROUGE-L F1 against the reference answer', async () => {
    const item: BenchmarkItem = { id: 'r1', benchmark: 'qa', kind: 'reference', question: 'q', category: 'qa', referenceAnswer: '甲乙丙丁', meta: {} };
    const result = await scoreItem(item, '甲乙');
    expect(result).toMatchObject({ metric: 'rougeL' });
    expect(result.score).toBeCloseTo((100 * 2 * 1 * 0.5) / 1.5);
  });
});
