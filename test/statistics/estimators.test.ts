import { describe, expect, it } from 'vitest';
import { summarizeScores } from '../../src/statistics/bootstrap.js';
import { clusteredBootstrap } from '../../src/statistics/clusteredBootstrap.js';
import { clusterSums, designEffect } from '../../src/statistics/clusters.js';
import { benjaminiHochbergAdjust, holmAdjust } from '../../src/statistics/multipleComparisons.js';
import { signFlipTest } from '../../src/statistics/pairedTest.js';
import { depthCurve } from '../../src/statistics/depthCurve.js';

/** 10 volumes × 6 questions: each volume's questions score alike (volume v scores 10·v ± 1). */
function volumes(): { values: number[]; clusters: string[] } {
  const values: number[] = [];
  const clusters: string[] = [];
  for (let v = 0; v < 10; v++) for (let q = 0; q < 6; q++) {
    values.push(10 * v + (q % 2 ? 1 : -1));
    clusters.push(`vol${v}`);
  }
  return { values, clusters };
}

describe('cluster sums', () => {
  it('adds each cluster once, in order of first appearance', () => {
    const s = clusterSums([1, 2, 3, 4], ['b', 'a', 'b', 'a']);
    expect([...s.sums]).toEqual([4, 6]);
    expect([...s.counts]).toEqual([2, 2]);
    expect(s.mean).toBe(2.5);
  });
});

describe('design effect (Miller 2024, Appendix A)', () => {
  it('is about 1 + (m − 1) when questions of a volume are alike', () => {
    const { values, clusters } = volumes();
    // ICC ≈ 1 with 6 questions per volume: the clustered variance is ≈ 6 times the plain one.
    expect(designEffect(values, clusters).designEffect!).toBeGreaterThan(5);
  });

  it('is below 1 when each volume holds the whole spread (volumes alike)', () => {
    const values = Array.from({ length: 60 }, (_, i) => (i % 6) * 10);
    const clusters = values.map((_, i) => `vol${Math.floor(i / 6)}`);
    expect(designEffect(values, clusters).designEffect!).toBeLessThan(0.2);
  });

  it('matches the plain variance, times C/(C−1)·(n−1)/n, when each question is its own cluster', () => {
    const values = [3, 1, 4, 1, 5, 9, 2, 6];
    const d = designEffect(values, values.map((_, i) => i));
    expect(d.designEffect).toBeCloseTo(1, 10);
  });
});

describe('clustered bootstrap', () => {
  it('widens the interval of clustered data against the plain bootstrap', () => {
    const { values, clusters } = volumes();
    const clustered = clusteredBootstrap(values, clusters, { resamples: 2000, seed: 3 });
    const plain = clusteredBootstrap(values, undefined, { resamples: 2000, seed: 3 });
    expect(clustered.mean).toBeCloseTo(45);
    expect(clustered.clusters).toBe(10);
    expect(plain.clusters).toBe(60);
    expect(clustered.ciHigh - clustered.ciLow).toBeGreaterThan(2 * (plain.ciHigh - plain.ciLow));
  });

  it('gives an interval as wide as the plain one would (same variance) when every question is its own cluster', () => {
    const values = Array.from({ length: 200 }, (_, i) => (i * 37) % 100);
    const own = clusteredBootstrap(values, values.map((_, i) => i), { resamples: 4000, seed: 1 });
    const plain = summarizeScores(values, { resamples: 4000, seed: 1 });
    expect(own.ciHigh - own.ciLow).toBeCloseTo(plain.ciHigh - plain.ciLow, 0);
  });
});

describe('sign-flip permutation test', () => {
  it('is exact with few clusters: 3 volumes all positive give p = 2/8', () => {
    const r = signFlipTest([1, 2, 3, 1, 2, 3], ['a', 'a', 'b', 'b', 'c', 'c']);
    expect(r).toEqual({ p: 0.25, flips: 8, exact: true });
  });

  it('finds a consistent difference over many questions', () => {
    const diffs = Array.from({ length: 100 }, (_, i) => 5 + ((i * 13) % 7) - 3);
    expect(signFlipTest(diffs, undefined, { seed: 1 }).p).toBeLessThan(0.001);
  });

  it('gives a large p when the differences cancel', () => {
    const diffs = Array.from({ length: 100 }, (_, i) => (i % 2 ? 4 : -4));
    expect(signFlipTest(diffs, undefined, { seed: 1 }).p).toBeGreaterThan(0.9);
  });

  it('is far less sure when the same differences come from few volumes', () => {
    const diffs = Array.from({ length: 60 }, (_, i) => (Math.floor(i / 10) % 3 === 0 ? -2 : 3));
    const byQuestion = signFlipTest(diffs, undefined, { seed: 2 }).p;
    const byVolume = signFlipTest(diffs, diffs.map((_, i) => Math.floor(i / 10)), { seed: 2 }).p;
    expect(byQuestion).toBeLessThan(0.01);
    expect(byVolume).toBeGreaterThan(0.1);
  });
});

describe('Holm and Benjamini–Hochberg', () => {
  // R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") → 0.03 0.06 0.06 0.02; "BH" → 0.02 0.04 0.04 0.02
  it('match R p.adjust', () => {
    const p = [0.01, 0.04, 0.03, 0.005];
    holmAdjust(p).forEach((v, i) => expect(v).toBeCloseTo([0.03, 0.06, 0.06, 0.02][i]!, 12));
    benjaminiHochbergAdjust(p).forEach((v, i) => expect(v).toBeCloseTo([0.02, 0.04, 0.04, 0.02][i]!, 12));
  });

  it('cap at 1 and leave comparisons without data out of the family', () => {
    const holm = holmAdjust([0.5, NaN, 0.6]);
    expect(holm[0]).toBe(1);
    expect(holm[1]).toBeNaN();
    expect(holm[2]).toBe(1);
    expect(benjaminiHochbergAdjust([0.02, NaN, 0.04])).toEqual([0.04, NaN, 0.04]);
  });
});

describe('depth curve', () => {
  /** 40 questions in 8 volumes at k = 10, 20, 50, 100: score falls by 4 points per ln k, best at k=10. */
  function falling() {
    const depths = [10, 20, 50, 100];
    const scores = Array.from({ length: 40 }, (_, i) => depths.map((k) => 60 + ((i * 7) % 11) - 4 * Math.log(k)));
    return { depths, scores, clusters: scores.map((_, i) => `v${i % 8}`) };
  }

  it('recovers the slope over ln k, the best k and "deepest below best"', () => {
    const { depths, scores, clusters } = falling();
    const c = depthCurve(depths, scores, clusters, { resamples: 1000, seed: 1 });
    expect(c.slope.estimate).toBeCloseTo(-4, 10);
    // Every question falls by the same amount: every resample agrees.
    expect(c.slope.ciLow).toBeCloseTo(-4, 10);
    expect(c.bestK).toBe(10);
    expect(c.probabilityBest).toEqual([1, 0, 0, 0]);
    expect(c.deepestMinusBest.estimate).toBeCloseTo(-4 * Math.log(10), 10);
    expect(c.deepestBelowBest).toBe(true);
  });

  it('splits the probability of best k when the curve is flat', () => {
    const scores = Array.from({ length: 30 }, (_, i) => [i % 3 ? 50 : 40, i % 3 ? 50 : 40]);
    const c = depthCurve([5, 10], scores, undefined, { resamples: 200, seed: 1 });
    expect(c.probabilityBest).toEqual([0.5, 0.5]);
    expect(c.deepestBelowBest).toBe(false);
    expect(c.slope.estimate).toBeCloseTo(0, 10);
  });

  it('puts most probability on the true best depth when noise hides it sometimes', () => {
    const scores = Array.from({ length: 200 }, (_, i) => [40 + ((i * 17) % 30), 44 + ((i * 29) % 30), 41 + ((i * 11) % 30)]);
    const c = depthCurve([10, 20, 50], scores, undefined, { resamples: 2000, seed: 4 });
    expect(c.bestK).toBe(20);
    expect(c.probabilityBest[1]!).toBeGreaterThan(0.6);
    expect(c.probabilityBest.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
  });

  it('names as best k the depth with the highest P(best), even where another has the highest mean', () => {
    // k=3 and k=10 score alike (they tie in every resample and share its win); k=3 beats k=1 on 11
    // questions and loses on 10, so its mean is higher, yet k=1 is best in more resamples than either.
    const scores = Array.from({ length: 21 }, (_, i) => (i < 11 ? [50, 51, 51] : [51, 50, 50]));
    const c = depthCurve([1, 3, 10], scores, undefined, { resamples: 2000, seed: 3 });
    expect(c.means[1]!).toBeGreaterThan(c.means[0]!);
    const highest = Math.max(...c.probabilityBest);
    expect(c.probabilityBest[0]).toBe(highest);
    expect(c.bestK).toBe(1);
    expect(c.deepestMinusBest.estimate).toBeCloseTo(1 / 21, 10);
  });

  it('refuses unsorted depths', () => {
    expect(() => depthCurve([20, 10], [[1, 2]], undefined)).toThrow(/ascending/);
  });
});
