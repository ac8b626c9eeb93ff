import { describe, expect, it } from 'vitest';
import { bonusTotal, parseRubric, verdictKey } from '../../../src/scoring/rubric/parseRubric.js';

const weights = (text: string, compat?: 'hisrag' | 'reference') =>
  Object.fromEntries(parseRubric(text, { compat }).map((item) => [verdictKey(item), item.weight]));

describe('parseRubric', () => {
  it('reads items numbered 1、 1. and 1【', () => {
    const rubric = '加分项：\n1、指出科举始于隋朝{+5}\n2.说明唐代进士科地位{+3}\n3【史实】提及殿试始于武则天{+2}';
    expect(weights(rubric)).toEqual({ 加分项_1: 5, 加分项_2: 3, 加分项_3: 2 });
  });

  it('splits the bonus and deduction halves and makes deductions negative', () => {
    const rubric = '加分项：\n1、要点甲{+4}\n2、要点乙{+6}\n减分项：\n1、史实错误{-5}\n2、口语化{-1}';
    expect(weights(rubric)).toEqual({ 加分项_1: 4, 加分项_2: 6, 减分项_1: -5, 减分项_2: -1 });
    expect(bonusTotal(parseRubric(rubric))).toBe(10);
  });

  it('sums several weight markers on one item', () => {
    expect(weights('加分项：\n1、要点甲{+2}，并分析原因{+3}\n2、要点乙{ +1 }')).toEqual({ 加分项_1: 5, 加分项_2: 1 });
  });

  it('keeps the text of an item that runs over several lines', () => {
    const [item] = parseRubric('加分项：\n1、要点甲\n补充说明{+2}');
    expect(item).toMatchObject({ half: 'bonus', number: 1, weight: 2 });
    expect(item!.text).toContain('补充说明');
  });

  it('keeps an item written on the 加分项 header line by default', () => {
    expect(weights('加分项：1、要点甲{+5}\n2、要点乙{+5}')).toEqual({ 加分项_1: 5, 加分项_2: 5 });
  });

  it('drops an item written on the 加分项 header line in reference mode', () => {
    expect(weights('加分项：1、要点甲{+5}\n2、要点乙{+5}', 'reference')).toEqual({ 加分项_2: 5 });
  });

  it('keeps an item on the 减分项 header line by default and drops it in reference mode', () => {
    const rubric = '加分项：\n1、要点甲{+5}\n减分项：1、史实错误{-3}\n2、口语化{-1}';
    expect(weights(rubric)).toEqual({ 加分项_1: 5, 减分项_1: -3, 减分项_2: -1 });
    expect(weights(rubric, 'reference')).toEqual({ 加分项_1: 5, 减分项_2: -1 });
  });

  it('reads a header decorated with a point total and markdown bold', () => {
    expect(weights('**加分项**（共8分）：1、要点甲{+5}\n2、要点乙{+3}')).toEqual({ 加分项_1: 5, 加分项_2: 3 });
  });

  it('accepts full-width braces, plus signs and digits by default', () => {
    expect(weights('加分项：\n１．要点甲｛＋５｝\n2、要点乙{+3}')).toEqual({ 加分项_1: 5, 加分项_2: 3 });
  });

  it('drops items without weight, as the reference does', () => {
    expect(weights('加分项：\n1、要点甲{+5}\n2、没有分值的说明')).toEqual({ 加分项_1: 5 });
  });

  it('reads a deduction marker written without a sign as a deduction', () => {
    expect(weights('加分项：\n1、甲{+5}\n减分项：\n1、错误{3}')).toEqual({ 加分项_1: 5, 减分项_1: -3 });
  });

  it('returns no items for a rubric without weights', () => {
    expect(parseRubric('请根据答案质量评分')).toEqual([]);
  });
});
