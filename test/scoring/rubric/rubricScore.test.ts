import { describe, expect, it } from 'vitest';
import { parseRubric } from '../../../src/scoring/rubric/parseRubric.js';
import { roundHalfEven } from '../../../src/scoring/rubric/roundHalfEven.js';
import { missingVerdicts, rubricScore } from '../../../src/scoring/rubric/rubricScore.js';

const rubric = '加分项：\n1、甲{+5}\n2、乙{+3}\n3、丙{+2}\n减分项：\n1、史实错误{-5}\n2、口语化{-1}';

describe('roundHalfEven', () => {
  it.each([
    [12.5, 12],
    [13.5, 14],
    [0.5, 0],
    [1.5, 2],
    [2.5, 2],
    [12.4999, 12],
    [12.5001, 13],
    [100, 100],
  ])('rounds %d to %d like Python round', (x, y) => {
    expect(roundHalfEven(x)).toBe(y);
  });
});

describe('rubricScore', () => {
  it('divides the hit weights by the bonus total', () => {
    const score = rubricScore(parseRubric(rubric), { 加分项_1: 1, 加分项_2: 0, 加分项_3: 1, 减分项_1: 0, 减分项_2: 0 });
    expect(score).toMatchObject({ rs: 70, rsRaw: 70, earned: 7, possible: 10 });
  });

  it('subtracts hit deductions', () => {
    expect(rubricScore(parseRubric(rubric), { 加分项_1: 1, 加分项_2: 1, 减分项_2: 1 }).rsRaw).toBe(70);
  });

  it('clips a negative total at 0', () => {
    const score = rubricScore(parseRubric(rubric), { 加分项_3: 1, 减分项_1: 1, 减分项_2: 1 });
    expect(score.earned).toBe(-4);
    expect(score.rs).toBe(0);
    expect(score.rsRaw).toBe(0);
  });

  it('rounds the item RS half to even and keeps the unrounded value', () => {
    const eight = parseRubric('加分项：\n1、甲{+1}\n2、乙{+7}');
    expect(rubricScore(eight, { 加分项_1: 1 })).toMatchObject({ rs: 12, rsRaw: 12.5 });
    const forty = parseRubric('加分项：\n1、甲{+27}\n2、乙{+13}');
    expect(rubricScore(forty, { 加分项_2: 1 })).toMatchObject({ rs: 32, rsRaw: 32.5 });
    const three = parseRubric('加分项：\n1、甲{+1}\n2、乙{+2}');
    expect(rubricScore(three, { 加分项_1: 1 }).rs).toBe(33);
  });

  it('scores 0 when the rubric has no bonus weight', () => {
    expect(rubricScore([], {}).rs).toBe(0);
  });

  it('lists the items the verdicts do not mention', () => {
    expect(missingVerdicts(parseRubric(rubric), { 加分项_1: 1, 加分项_2: 0, 减分项_1: 0 })).toEqual(['加分项_3', '减分项_2']);
  });

  it('gives different scores in the two modes when item 1 stands on the header line', () => {
    const quirky = '加分项：1、甲{+5}\n2、乙{+5}';
    const verdicts = { 加分项_1: 1 as const, 加分项_2: 0 as const };
    expect(rubricScore(parseRubric(quirky), verdicts).rs).toBe(50);
    expect(rubricScore(parseRubric(quirky, { compat: 'reference' }), verdicts).rs).toBe(0);
  });
});
