import { describe, expect, it } from 'vitest';
import { parseListwiseAnswer } from '../../src/rerank/listwiseAnswer.js';

describe('reading an LLM\'s listwise ranking', () => {
  it('reads the RankGPT shape [2] > [3] > [1]', () => {
    expect(parseListwiseAnswer('[2] > [3] > [1]', 3)).toEqual({ order: [1, 2, 0], missing: 0 });
  });

  it('reads plain numbers, JSON lists, one id per line and full-width brackets', () => {
    expect(parseListwiseAnswer('2, 3, 1', 3)).toEqual({ order: [1, 2, 0], missing: 0 });
    expect(parseListwiseAnswer('```json\n[3, 1, 2]\n```', 3)).toEqual({ order: [2, 0, 1], missing: 0 });
    expect(parseListwiseAnswer('3\n2\n1', 3)).toEqual({ order: [2, 1, 0], missing: 0 });
    expect(parseListwiseAnswer('［2］＞［1］＞［3］', 3)).toEqual({ order: [1, 0, 2], missing: 0 });
  });

  it('drops reasoning before </think>, so ids mentioned while thinking do not count', () => {
    expect(parseListwiseAnswer('<think>也许 [1] 最好？</think>[3] > [2] > [1]', 3)).toEqual({ order: [2, 1, 0], missing: 0 });
  });

  it('ignores out-of-range ids and repeats, and appends left-out candidates in first-stage order', () => {
    expect(parseListwiseAnswer('[4] > [9] > [4] > [2]', 5)).toEqual({ order: [3, 1, 0, 2, 4], missing: 3 });
  });

  it('calls an answer naming no candidate unusable, saying why', () => {
    expect(parseListwiseAnswer('我无法判断', 3)).toEqual({ error: expect.stringContaining('names no candidate id between 1 and 3') });
    expect(parseListwiseAnswer('[7] > [8]', 3)).toHaveProperty('error');
    expect(parseListwiseAnswer('<think>…</think>  ', 3)).toEqual({ error: 'empty answer' });
  });

  it('does not read decimals as ids', () => {
    expect(parseListwiseAnswer('相关度 0.9', 3)).toHaveProperty('error');
  });
});
