import { describe, expect, it } from 'vitest';
import { retrievalMetrics } from '../../src/scoring/retrievalMetrics.js';

describe('retrievalMetrics', () => {
  it('computes recall, precision, F1, AP, MRR and nDCG at k', () => {
    const m = retrievalMetrics([3, 11, 7, 12], [11, 12], 4);
    expect(m.recall).toBe(1);
    expect(m.precision).toBe(0.5);
    expect(m.f1).toBeCloseTo(2 / 3);
    expect(m.ap).toBeCloseTo((1 / 2 + 2 / 4) / 2);
    expect(m.mrr).toBe(0.5);
    const dcg = 1 / Math.log2(3) + 1 / Math.log2(5);
    expect(m.ndcg).toBeCloseTo(dcg / (1 + 1 / Math.log2(3)));
  });

  it('cuts the ranking at k', () => {
    expect(retrievalMetrics([3, 11, 7, 12], [11, 12], 2)).toMatchObject({ recall: 0.5, precision: 0.5 });
  });

  it('treats page 11 and "11" as the same id', () => {
    expect(retrievalMetrics(['11'], [11], 1).recall).toBe(1);
  });

  it('counts a repeated id once', () => {
    expect(retrievalMetrics([11, 11], [11, 12], 2)).toMatchObject({ recall: 0.5, precision: 0.5 });
  });

  it('scores a perfect ranking 1 everywhere', () => {
    expect(retrievalMetrics([1, 2], [1, 2], 2)).toEqual({ recall: 1, precision: 1, f1: 1, ap: 1, mrr: 1, ndcg: 1 });
  });

  it('scores no hits 0', () => {
    expect(retrievalMetrics([5, 6], [1], 2)).toEqual({ recall: 0, precision: 0, f1: 0, ap: 0, mrr: 0, ndcg: 0 });
  });
});
