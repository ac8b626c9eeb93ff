import { describe, expect, it } from 'vitest';
import { reciprocalRankFusion, weightedScoreFusion } from '../../src/retrieval/fusion.js';
import type { RetrievedChunk } from '../../src/retrieval/types.js';

const list = (...hits: [string, number][]): RetrievedChunk[] =>
  hits.map(([id, score], i) => ({ id, docId: 'd', title: '', text: id, meta: {}, score, rank: i + 1 }));

describe('fusion', () => {
  const dense = list(['a', 0.9], ['b', 0.8], ['c', 0.1]);
  const lexical = list(['c', 12], ['a', 6], ['d', 3]);

  it('reciprocal-rank fusion sums w / (60 + rank) over the lists containing a chunk', () => {
    const fused = reciprocalRankFusion([dense, lexical], [1, 1]);
    const score = Object.fromEntries(fused.map((c) => [c.id, c.score]));
    expect(score.a).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(score.c).toBeCloseTo(1 / 63 + 1 / 61, 12);
    expect(score.b).toBeCloseTo(1 / 62, 12);
    expect(score.d).toBeCloseTo(1 / 63, 12);
    expect(fused.map((c) => c.id)).toEqual(['a', 'c', 'b', 'd']);
  });

  it('reciprocal-rank fusion applies list weights', () => {
    const fused = reciprocalRankFusion([dense, lexical], [0, 2]);
    expect(fused.map((c) => c.id).slice(0, 3)).toEqual(['c', 'a', 'd']);
    expect(fused[0]!.score).toBeCloseTo(2 / 61, 12);
  });

  it('weighted fusion min-max normalises each list before the weighted sum', () => {
    const fused = weightedScoreFusion([dense, lexical], [0.5, 0.5]);
    const score = Object.fromEntries(fused.map((c) => [c.id, c.score]));
    // dense: a 1, b 0.875, c 0; lexical: c 1, a 1/3, d 0.
    expect(score.a).toBeCloseTo(0.5 * 1 + 0.5 * (1 / 3), 12);
    expect(score.b).toBeCloseTo(0.5 * 0.875, 12);
    expect(score.c).toBeCloseTo(0.5, 12);
    expect(score.d).toBeCloseTo(0, 12);
    expect(fused.map((c) => c.id)).toEqual(['a', 'c', 'b', 'd']);
  });

  it('weighted fusion maps a list of equal scores to 1', () => {
    const fused = weightedScoreFusion([list(['x', 5], ['y', 5])], [1]);
    expect(fused.map((c) => c.score)).toEqual([1, 1]);
  });
});
