import { describe, expect, it } from 'vitest';
import { coverageStudy, nullFamilyStudy } from '../../src/statistics/simulate.js';

// Proof by simulation on LongHisDoc-shaped data: 60 volumes × 8 questions, a volume effect holding
// 30% of the variance (design effect 1 + 7·0.3 = 3.1). The script (scripts/simulate-intervals.ts)
// runs the same studies with 10× the runs; here fewer runs, with tolerances that still fail a
// wrong estimator (the plain bootstrap's 70% coverage, an unadjusted family's 33% error).
const design = { clusters: 60, perCluster: 8, icc: 0.3, sd: 25 };

describe('estimators by simulation', () => {
  it('the cluster bootstrap covers the truth about 95% of the time; the plain bootstrap undercovers', () => {
    const r = coverageStudy({ ...design, truth: 50 }, { runs: 300, resamples: 400, seed: 11 });
    // 300 runs: the Monte-Carlo standard error of a 95% coverage is 1.3 points.
    expect(r.clustered).toBeGreaterThanOrEqual(0.91);
    expect(r.clustered).toBeLessThanOrEqual(0.985);
    expect(r.plain).toBeLessThan(0.82);
    expect(r.designEffect).toBeGreaterThan(2.5);
    expect(r.designEffect).toBeLessThan(3.7);
  });

  it("Holm keeps the family-wise error at or below 5% under the null; unadjusted tests do not", () => {
    const r = nullFamilyStudy(design, { runs: 200, comparisons: 10, flips: 499, seed: 12 });
    expect(r.holm).toBeLessThanOrEqual(0.08);
    expect(r.unadjusted).toBeGreaterThan(0.2);
    // The clustered sign-flip test itself holds its size.
    expect(r.perComparison).toBeGreaterThan(0.02);
    expect(r.perComparison).toBeLessThan(0.08);
  });
});
