import { describe, expect, it } from 'vitest';
import { extractBoxedLetters, scoreMcq } from '../../../src/scoring/rubric/mcq.js';

describe('MCQ scoring', () => {
  it('takes the letters of the last \\boxed{}', () => {
    expect(extractBoxedLetters('先选\\boxed{A}，再想想，最终 $\\boxed{ACD}$')).toBe('ACD');
  });

  it('ignores boxes inside the reasoning block', () => {
    expect(extractBoxedLetters('<think>\\boxed{B}</think>答案 \\boxed{C}')).toBe('C');
    expect(extractBoxedLetters('<think>\\boxed{B}</think>答案是C')).toBe('');
  });

  it('reads letters from decorated boxes by default but not in reference mode', () => {
    expect(extractBoxedLetters('\\boxed{\\text{A, C}}')).toBe('AC');
    expect(extractBoxedLetters('\\boxed{\\text{A, C}}', { compat: 'reference' })).toBe('');
  });

  it('gives 100 for the exact set, in any order', () => {
    expect(scoreMcq('FEDA', 'ADEF')).toBe(100);
  });

  it('gives 60 for a non-empty strict subset', () => {
    expect(scoreMcq('AD', 'ADEF')).toBe(60);
  });

  it('gives 0 for a set with a wrong letter, and for no letters', () => {
    expect(scoreMcq('AB', 'ADEF')).toBe(0);
    expect(scoreMcq('', 'ADEF')).toBe(0);
  });
});
