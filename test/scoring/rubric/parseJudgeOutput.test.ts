import { describe, expect, it } from 'vitest';
import { parseJudgeOutput } from '../../../src/scoring/rubric/parseJudgeOutput.js';

describe('parseJudgeOutput', () => {
  it('reads verdict lines with ASCII and full-width colons', () => {
    expect(parseJudgeOutput('加分项_1: 1\n加分项_2：0\n减分项_1:1').verdicts).toEqual({ 加分项_1: 1, 加分项_2: 0, 减分项_1: 1 });
  });

  it('ignores and counts stray lines', () => {
    const parsed = parseJudgeOutput('评分结果如下：\n加分项_1: 1\n\n理由：答案提到了隋朝。\n加分项_2: 0');
    expect(parsed.verdicts).toEqual({ 加分项_1: 1, 加分项_2: 0 });
    expect(parsed.strayLines).toBe(2);
  });

  it('counts a line with a value other than 0 or 1 as stray', () => {
    const parsed = parseJudgeOutput('加分项_1: 1（符合）\n加分项_2: 2');
    expect(parsed.verdicts).toEqual({});
    expect(parsed.strayLines).toBe(2);
  });

  it('drops the reasoning block before reading', () => {
    expect(parseJudgeOutput('<think>加分项_1: 0 先想想</think>\n加分项_1: 1').verdicts).toEqual({ 加分项_1: 1 });
  });

  it('tolerates list bullets and bold markers by default', () => {
    expect(parseJudgeOutput('- **加分项_1**: 1\n* 加分项_2 : 0').verdicts).toEqual({ 加分项_1: 1, 加分项_2: 0 });
  });

  it('in reference mode keeps the key exactly as written before the colon', () => {
    const parsed = parseJudgeOutput('- 加分项_1: 1\n加分项_2: 1\n加分项_3: 2', { compat: 'reference' });
    expect(parsed.verdicts).toEqual({ '- 加分项_1': 1, 加分项_2: 1, 加分项_3: 0 });
  });
});
