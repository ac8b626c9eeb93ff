import { describe, expect, it } from 'vitest';
import { codePointLength, levenshtein } from '../../src/text/levenshtein.js';

describe('levenshtein', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(levenshtein('', '赵庄姬')).toBe(3);
    expect(levenshtein('赵庄姬', '赵庄姬')).toBe(0);
  });

  it('treats a CJK Extension B character as one character', () => {
    expect(levenshtein('𣈆赵婴', '晋赵婴')).toBe(1);
    expect(codePointLength('𣈆赵婴')).toBe(3);
  });
});
