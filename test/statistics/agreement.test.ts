import { describe, expect, it } from 'vitest';
import { cohensKappa, krippendorffAlpha, pearson, pearsonWithInterval, type Label } from '../../src/statistics/agreement.js';

describe('pearson', () => {
  it('is 1 for a perfect linear relation and −1 for an inverse one', () => {
    expect(pearson([1, 2, 3], [2, 4, 6])).toBeCloseTo(1);
    expect(pearson([1, 2, 3], [3, 2, 1])).toBeCloseTo(-1);
  });

  it('is NaN without variance', () => {
    expect(pearson([1, 1, 1], [1, 2, 3])).toBeNaN();
  });
});

describe('pearsonWithInterval', () => {
  const x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
  const y = [2, 1, 4, 3, 7, 5, 6, 9, 8, 12, 10, 11];

  it("without clusters: r worked by hand, and Fisher's z interval (checked against scipy in goldenStatistics.test.ts)", () => {
    const e = pearsonWithInterval(x, y);
    // r by hand (y a permutation of x, Σd² = 18): Σdxdy = 143 − 18/2 = 134, Σdx² = Σdy² = 143.
    expect(pearson(x, y)).toBeCloseTo(134 / 143, 12);
    expect(e.value).toBeCloseTo(134 / 143, 12);
    expect(e.method).toBe('fisher-z');
    // The interval is asymmetric around r (it is symmetric in atanh r), skewed away from 1.
    expect(e.ciHigh - e.value).toBeLessThan(e.value - e.ciLow);
  });

  it('with clusters: the bootstrap over clusters, wider when the clusters carry the correlation', () => {
    // Six clusters of two: within a cluster the pairs agree, so 12 values carry about 6 clusters' information.
    const clusters = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5];
    const cx = [1, 1.1, 5, 5.1, 2, 2.1, 8, 8.1, 3, 3.1, 6, 6.1];
    const cy = [2, 2.1, 4, 4.1, 1, 1.1, 9, 9.1, 4, 4.1, 5, 5.1];
    const clustered = pearsonWithInterval(cx, cy, { clusters, seed: 3, resamples: 2000 });
    const fisher = pearsonWithInterval(cx, cy);
    expect(clustered.method).toBe('cluster-bootstrap');
    expect(clustered.value).toBe(fisher.value);
    expect(clustered.ciLow).toBeLessThan(clustered.value);
    expect(clustered.ciHigh).toBeGreaterThan(clustered.value);
    expect(clustered.ciHigh - clustered.ciLow).toBeGreaterThan(fisher.ciHigh - fisher.ciLow);
  });
});

describe("Cohen's κ", () => {
  it('is 0.4 on the 50-item textbook table (20 yes–yes, 5 yes–no, 10 no–yes, 15 no–no): p_o 0.7, p_e 0.5', () => {
    const a: number[] = [];
    const b: number[] = [];
    const add = (count: number, x: number, y: number) => {
      for (let i = 0; i < count; i++) (a.push(x), b.push(y));
    };
    add(20, 1, 1);
    add(5, 1, 0);
    add(10, 0, 1);
    add(15, 0, 0);
    const k = cohensKappa(a, b, { seed: 1 });
    expect(k.observed).toBeCloseTo(0.7, 12);
    expect(k.expected).toBeCloseTo(0.5, 12);
    expect(k.value).toBeCloseTo(0.4, 12);
    expect(k.units).toBe(50);
    expect(k.ciLow).toBeLessThan(0.4);
    expect(k.ciHigh).toBeGreaterThan(0.4);
  });

  it("is 0.091 on Krippendorff's (2011) binary two-observer example, and skips units one rater left unlabelled", () => {
    // p_o = 6/10; marginals 2/10 and 4/10 ones: p_e = 0.2·0.4 + 0.8·0.6 = 0.56; κ = 0.04/0.44.
    const a: Label[] = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1];
    const b: Label[] = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0, null];
    const k = cohensKappa(a, b);
    expect(k.units).toBe(10);
    expect(k.value).toBeCloseTo(0.04 / 0.44, 12);
  });

  it('is 1 for perfect agreement and NaN when both raters give everything one label', () => {
    expect(cohensKappa([0, 1, 1, 0], [0, 1, 1, 0]).value).toBeCloseTo(1, 12);
    expect(cohensKappa([1, 1, 1], [1, 1, 1]).value).toBeNaN();
  });
});

describe("Krippendorff's α (nominal)", () => {
  it("is 0.095 on Krippendorff's (2011) binary example: two observers, ten units", () => {
    const A = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0];
    const B = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0];
    const alpha = krippendorffAlpha(A.map((v, u) => [v, B[u]!]));
    // Hand-worked: o_01 = 4, n_0 = 14, n_1 = 6, n = 20: α = 1 − 19·4/(14·6) = 0.0952.
    expect(alpha.value).toBeCloseTo(1 - (19 * 4) / 84, 12);
    expect(alpha.value.toFixed(3)).toBe('0.095');
  });

  it("is 0.743 on Krippendorff's (2011) nominal example: four observers, twelve units, missing values", () => {
    const _ = null;
    // Rows: observers A–D; columns: units 1–12 (Krippendorff 2011, section C).
    const observers: Label[][] = [
      [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
      [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
      [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
      [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
    ];
    const units = observers[0]!.map((_v, u) => observers.map((row) => row[u]));
    const alpha = krippendorffAlpha(units, { seed: 7 });
    expect(alpha.value.toFixed(3)).toBe('0.743');
    // Unit 12 has one value: not pairable. n = 40 pairable values.
    expect(alpha.units).toBe(11);
    expect(alpha.pairableValues).toBe(40);
    expect(alpha.ciLow).toBeLessThan(alpha.value);
    expect(alpha.ciHigh).toBeGreaterThanOrEqual(alpha.value);
  });

  it('equals Cohen-style agreement figures at the extremes: 1 for perfect agreement', () => {
    expect(krippendorffAlpha([['a', 'a', 'a'], ['b', 'b', null], ['a', 'a', 'a']]).value).toBeCloseTo(1, 12);
  });

  it('gives the same α whatever the order of units and of the raters within a unit', () => {
    const units: Label[][] = [[0, 1], [1, 1], [0, 0], [1, 0, 1], [0, 0, 0], [1, 1, null]];
    const a = krippendorffAlpha(units, { seed: 5 });
    expect(krippendorffAlpha([...units].reverse(), { seed: 5 }).value).toBeCloseTo(a.value, 12);
    expect(krippendorffAlpha(units.map((u) => [...u].reverse()), { seed: 5 }).value).toBeCloseTo(a.value, 12);
  });
});
