import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pairedBootstrap, summarizeScores } from '../../src/statistics/bootstrap.js';

const values = [0, 10, 20, 35, 50, 50, 60, 80, 90, 100];

describe('summarizeScores', () => {
  it('reports the plain mean and n', () => {
    expect(summarizeScores(values)).toMatchObject({ mean: 49.5, n: 10 });
  });

  it("spans about ±1.96 standard errors: statsmodels' plain SE of the mean, without its n/(n − 1)", () => {
    // The golden case with every question its own cluster: plainSe from OLS(y, 1).fit().bse (scripts/golden/statistics.py).
    const golden = JSON.parse(readFileSync(new URL('../golden/statsmodels-cluster-se.json', import.meta.url), 'utf8')) as { cases: { note: string; values: number[]; plainSe: number }[] };
    const c = golden.cases.find((x) => x.note === 'each question its own cluster')!;
    const n = c.values.length;
    const se = c.plainSe * Math.sqrt((n - 1) / n);
    const s = summarizeScores(c.values, { resamples: 20_000, seed: 7 });
    expect((s.ciHigh - s.ciLow) / (2 * 1.959964 * se)).toBeGreaterThan(0.93);
    expect((s.ciHigh - s.ciLow) / (2 * 1.959964 * se)).toBeLessThan(1.07);
    const paired = pairedBootstrap(c.values, c.values.map(() => 0), { resamples: 20_000, seed: 8 });
    expect((paired.ciHigh - paired.ciLow) / (2 * 1.959964 * se)).toBeGreaterThan(0.93);
    expect((paired.ciHigh - paired.ciLow) / (2 * 1.959964 * se)).toBeLessThan(1.07);
  });

  it('gives a different interval for another seed', () => {
    expect(summarizeScores(values, { seed: 7 }).ciLow).not.toBe(summarizeScores(values, { seed: 8 }).ciLow);
  });

  it('brackets the mean inside the range of the data', () => {
    const s = summarizeScores(values, { seed: 1 });
    expect(s.ciLow).toBeLessThan(s.mean);
    expect(s.ciHigh).toBeGreaterThan(s.mean);
    expect(s.ciLow).toBeGreaterThanOrEqual(0);
    expect(s.ciHigh).toBeLessThanOrEqual(100);
  });

  it('collapses to the value when every score is the same', () => {
    expect(summarizeScores([40, 40, 40])).toMatchObject({ mean: 40, ciLow: 40, ciHigh: 40 });
  });

  it('narrows with a lower confidence level', () => {
    const wide = summarizeScores(values, { seed: 3 });
    const narrow = summarizeScores(values, { seed: 3, level: 0.5 });
    expect(narrow.ciHigh - narrow.ciLow).toBeLessThan(wide.ciHigh - wide.ciLow);
  });

  it('returns NaN for no values', () => {
    expect(summarizeScores([]).n).toBe(0);
    expect(summarizeScores([]).mean).toBeNaN();
  });
});

describe('pairedBootstrap', () => {
  it('reports the mean difference and the share of positive resamples', () => {
    const a = values.map((v) => v + 5);
    const result = pairedBootstrap(a, values, { seed: 1 });
    expect(result).toMatchObject({ meanDiff: 5, ciLow: 5, ciHigh: 5, sharePositive: 1, n: 10 });
  });

  it('finds no clear sign for differences that cancel out', () => {
    const b = [10, 10, 10, 10, 10, 10];
    const a = [20, 0, 20, 0, 20, 0];
    const result = pairedBootstrap(a, b, { seed: 2 });
    expect(result.meanDiff).toBe(0);
    expect(result.ciLow).toBeLessThan(0);
    expect(result.ciHigh).toBeGreaterThan(0);
    expect(result.sharePositive).toBeGreaterThan(0.1);
    expect(result.sharePositive).toBeLessThan(0.9);
  });

  it('rejects conditions of different lengths', () => {
    expect(() => pairedBootstrap([1, 2], [1])).toThrow(/same questions/);
  });
});
