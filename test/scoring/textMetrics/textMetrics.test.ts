import { describe, expect, it } from 'vitest';
import { greedyMatch } from '../../../src/scoring/textMetrics/bertScore.js';
import { bleu4 } from '../../../src/scoring/textMetrics/bleu.js';
import { lcsLength, rougeL } from '../../../src/scoring/textMetrics/rougeL.js';

describe('character BLEU-4', () => {
  it('is 100 for an identical text', () => {
    expect(bleu4('科举制度始于隋朝', '科举制度始于隋朝')).toBeCloseTo(100);
  });

  it('ignores whitespace between characters', () => {
    expect(bleu4('科 举 制 度', '科举制度')).toBeCloseTo(100);
  });

  it('is lower for a partial match and 0 for an empty hypothesis', () => {
    const partial = bleu4('科举制度始于唐朝', '科举制度始于隋朝');
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(100);
    expect(bleu4('', '科举')).toBe(0);
  });

  it('applies the brevity penalty to a short hypothesis', () => {
    expect(bleu4('科举制度', '科举制度始于隋朝')).toBeCloseTo(100 * Math.exp(1 - 8 / 4));
  });
});

describe('character ROUGE-L', () => {
  it('computes the longest common subsequence', () => {
    expect(lcsLength([...'甲乙丙丁'], [...'甲丙丁戊'])).toBe(3);
  });

  it('gives precision, recall and F1 on a 0–100 scale', () => {
    const r = rougeL('甲乙', '甲乙丙丁');
    expect(r.precision).toBe(100);
    expect(r.recall).toBe(50);
    expect(r.f1).toBeCloseTo(200 / 3);
  });
});

describe('BERTScore greedy matching', () => {
  it('is 1 for identical token vectors', () => {
    const v = [
      [1, 0],
      [0, 1],
    ];
    expect(greedyMatch(v, v).f1).toBeCloseTo(1);
  });

  it('matches each token to its most similar counterpart', () => {
    const candidate = [[1, 0]];
    const reference = [
      [1, 0],
      [0, 1],
    ];
    const r = greedyMatch(candidate, reference);
    expect(r.precision).toBeCloseTo(1);
    expect(r.recall).toBeCloseTo(0.5);
  });

  it('is 0 when a side has no tokens', () => {
    expect(greedyMatch([], [[1]]).f1).toBe(0);
  });
});
