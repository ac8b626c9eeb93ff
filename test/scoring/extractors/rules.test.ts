import { describe, expect, it } from 'vitest';
import { extractByRules } from '../../../src/scoring/extractors/rules.js';
import { extractors } from '../../../src/scoring/extractors/registry.js';

describe('rule-based extractor', () => {
  it.each([
    ['Int', '总数为三万二千四百五十人。', '32450'],
    ['Int', '答案：12', '12'],
    ['Int', '全国哀悼了三天。', '3'],
    ['Int', '共计1,728 人', '1728'],
    ['Bool', '是的，符合书中描述。', '是'],
    ['Bool', '否。书中并无此说。', '否'],
    ['Bool', '这一说法不符合原书。', '否'],
    ['Enum', '答案是B。', 'B'],
    ['Enum', '(C) 谦让', 'C'],
    ['Enum', 'D. 双手合十', 'D'],
    ['Enum', '\\boxed{A}', 'A'],
    ['List', '["伏羲", "神农", "黄帝"]', '["伏羲","神农","黄帝"]'],
    ['List', "['肉眼', '天眼']", '["肉眼","天眼"]'],
    ['List', '伏羲、神农、黄帝。', '["伏羲","神农","黄帝"]'],
    ['List', '页码为 [15, 16, 17]', '[15,16,17]'],
    ['None', '书中并未提及此事，无法回答。', '无法回答'],
    ['None', '死了三千人。', 'hallucinated'],
    ['Str', '答案：伯牛。军队驻扎在伯牛。', '伯牛'],
    ['Str', '“赵庄姬”', '赵庄姬'],
  ])('%s: %s → %s', (answerType, response, expected) => {
    expect(extractByRules(response, answerType)).toBe(expected);
  });

  it('ignores the reasoning block', () => {
    expect(extractByRules('<think>答案是A</think>答案是C', 'Enum')).toBe('C');
  });

  it('is registered as "rules" next to "llm"', async () => {
    expect(extractors.names()).toEqual(['llm', 'rules']);
    const extractor = await extractors.create({ name: 'rules' }, undefined);
    expect(await extractor.extract({ question: 'q', response: '是', answerType: 'Bool' })).toBe('是');
  });
});
