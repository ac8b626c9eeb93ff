import { describe, expect, it } from 'vitest';
import {
  designEffectOf,
  minimumDetectableDifference,
  normalQuantile,
  pairedVarianceOf,
  powerMultiplier,
  powerStudy,
  projectDesignEffect,
  questionsNeeded,
} from '../../src/statistics/power.js';
import { normalDrawer, simulateClustered } from '../../src/statistics/simulate.js';

describe('power before the run', () => {
  it('inverts the normal distribution function', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 6);
    expect(normalQuantile(0.8)).toBeCloseTo(0.841621, 6);
    expect(normalQuantile(0.01)).toBeCloseTo(-2.326348, 6);
    expect(normalQuantile(0.999)).toBeCloseTo(3.090232, 6);
    expect(() => normalQuantile(1)).toThrow(/\(0, 1\)/);
    expect(powerMultiplier()).toBeCloseTo(2.801585, 5);
  });

  it('gives MDD = (z₀.₉₇₅ + z₀.₈) · sqrt(deff · σ² / n) and its inverse, the questions a difference needs', () => {
    expect(minimumDetectableDifference(50, 400, 2)).toBeCloseTo(2.801585 * Math.sqrt((2 * 2500) / 400), 4);
    // Bonferroni over 10 comparisons: a smaller α, a larger MDD.
    expect(minimumDetectableDifference(50, 400, 2, { alpha: 0.005 })).toBeGreaterThan(minimumDetectableDifference(50, 400, 2));
    const n = questionsNeeded(40, 3, 2.5);
    expect(minimumDetectableDifference(40, n, 2.5)).toBeLessThanOrEqual(3);
    expect(minimumDetectableDifference(40, n - 1, 2.5)).toBeGreaterThan(3);
    expect(() => questionsNeeded(40, 0, 1)).toThrow(/difference/);
  });

  it('carries a design effect to another cluster size through its intra-cluster correlation', () => {
    expect(designEffectOf(0.3, 8)).toBeCloseTo(3.1, 10);
    expect(projectDesignEffect({ designEffect: 3.1, clusterSize: 8 }, 4)).toBeCloseTo(1.9, 10);
    expect(projectDesignEffect({ designEffect: 3.1, clusterSize: 8 }, 8)).toBeCloseTo(3.1, 10);
    // Unclustered measurements say nothing about clusters; a negative ICC is taken as 0.
    expect(projectDesignEffect({ designEffect: 1, clusterSize: 1 }, 10)).toBe(1);
    expect(projectDesignEffect({ designEffect: 0.6, clusterSize: 5 }, 10)).toBe(1);
  });

  it("measures σ_d and the design effect of an earlier run's paired differences", () => {
    const data = simulateClustered({ clusters: 300, perCluster: 10, icc: 0.3, sd: 25, truth: 2 }, normalDrawer(7));
    const measured = pairedVarianceOf(data.values, data.clusters)!;
    expect(measured.sd).toBeGreaterThan(23);
    expect(measured.sd).toBeLessThan(27);
    expect(measured.designEffect).toBeGreaterThan(3.7 - 0.8);
    expect(measured.designEffect).toBeLessThan(3.7 + 0.8);
    expect(measured.clusterSize).toBe(10);
    expect(pairedVarianceOf(data.values)!.designEffect).toBe(1);
    expect(pairedVarianceOf([3, 3, 3])).toBeNull();
  });

  it('detects a true difference equal to the reported MDD in ≈ 80% of simulated runs (clustered sign-flip test, α 0.05)', () => {
    const study = powerStudy({ clusters: 40, perCluster: 10, icc: 0.2, sd: 30 }, { runs: 300, flips: 999, seed: 11 });
    expect(study.mdd).toBeCloseTo(2.801585 * Math.sqrt((designEffectOf(0.2, 10) * 900) / 400), 4);
    expect(study.detected).toBeGreaterThanOrEqual(0.7);
    expect(study.detected).toBeLessThanOrEqual(0.9);
    // Half the MDD is detected far less often: the figure is not trivially met.
    // Theory at half the MDD: Φ(2.80/2 − 1.96) ≈ 29%.
    const half = powerStudy({ clusters: 40, perCluster: 10, icc: 0.2, sd: 30 }, { runs: 300, flips: 999, seed: 12, ofMdd: 0.5 });
    expect(half.detected).toBeGreaterThan(0.15);
    expect(half.detected).toBeLessThan(0.45);
  });
});
