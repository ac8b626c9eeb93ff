import { describe, expect, it } from 'vitest';
import { judgeAgreement } from '../../src/scoring/agreement.js';

describe('judgeAgreement', () => {
  const rubrics = '加分项：\n1、甲{+5}\n2、乙{+5}';

  it('correlates item verdicts and answer scores of answers paired by id', () => {
    const a = [
      { id: 'q1', verdicts: { 加分项_1: 1 as const, 加分项_2: 0 as const }, rubrics },
      { id: 'q2', verdicts: { 加分项_1: 1 as const, 加分项_2: 1 as const }, rubrics },
      { id: 'q3', verdicts: { 加分项_1: 0 as const, 加分项_2: 0 as const }, rubrics },
    ];
    const b = [
      { id: 'q3', judge_output: '加分项_1: 0\n加分项_2: 0', rubrics },
      { id: 'q1', judge_output: '加分项_1: 1\n加分项_2: 0', rubrics },
      { id: 'q2', judge_output: '加分项_1: 1\n加分项_2: 1', rubrics },
    ];
    const result = judgeAgreement(a, b);
    expect(result.itemLevel).toEqual({ r: expect.closeTo(1), n: 6 });
    expect(result.answerLevel).toEqual({ r: expect.closeTo(1), n: 3 });
  });

  it('uses the given answer score and counts unpaired answers', () => {
    const a = [
      { id: 1, verdicts: { 加分项_1: 1 as const }, score: 80 },
      { id: 2, verdicts: { 加分项_1: 0 as const }, score: 20 },
      { id: 3, verdicts: { 加分项_1: 1 as const }, score: 50 },
      { id: 9, verdicts: { 加分项_1: 1 as const } },
    ];
    const b = [
      { id: 1, verdicts: { 加分项_1: 0 as const }, score: 20 },
      { id: 2, verdicts: { 加分项_1: 1 as const }, score: 80 },
      { id: 3, verdicts: { 加分项_1: 1 as const }, score: 50 },
    ];
    const result = judgeAgreement(a, b);
    expect(result.answerLevel.r).toBeCloseTo(-1);
    expect(result.itemLevel.r).toBeCloseTo(-0.5);
    expect(result).toMatchObject({ onlyA: 1, onlyB: 0 });
  });
});
