import { describe, expect, it } from 'vitest';
import { ReducerSchema } from '../../src/config/experiment.js';
import { reduceSamples, twoStageBootstrap, varianceSplit } from '../../src/statistics/samples.js';
import { clusteredBootstrap } from '../../src/statistics/clusteredBootstrap.js';
import { normalDrawer, sampledCoverageStudy, simulateSampled } from '../../src/statistics/simulate.js';

describe('reducers of repeated samples', () => {
  it('mean, median, mode (majority; ties to the lowest) and max', () => {
    expect(reduceSamples([0, 100, 100], 'mean')).toBeCloseTo(200 / 3, 10);
    expect(reduceSamples([10, 90, 30, 20], 'median')).toBe(25);
    expect(reduceSamples([0, 100, 100], 'mode')).toBe(100);
    expect(reduceSamples([0, 100], 'mode')).toBe(0);
    expect(reduceSamples([0, 0, 100], 'max')).toBe(100);
    expect(reduceSamples([42], 'median')).toBe(42);
  });

  it('are validated by name', () => {
    expect(ReducerSchema.safeParse('at_least_2').success).toBe(false);
    expect(ReducerSchema.parse('mode')).toBe('mode');
  });
});

describe('two-stage bootstrap', () => {
  it('is exactly the cluster bootstrap with one sample per question', () => {
    const values = Array.from({ length: 60 }, (_, i) => ((i * 37) % 11) * 9);
    const clusters = values.map((_, i) => Math.floor(i / 6));
    const two = twoStageBootstrap({ samples: values.map((v) => [v]), clusters }, { resamples: 500, seed: 3 });
    const one = clusteredBootstrap(values, clusters, { resamples: 500, seed: 3 });
    expect(two).toEqual(one);
  });

  it('does not count the sampling noise twice: about the spread of the question means’ own bootstrap', () => {
    const normal = normalDrawer(9);
    const noisy = simulateSampled({ clusters: 40, perCluster: 5, icc: 0.2, sd: 10, truth: 50, samples: 3, samplingSd: 30 }, normal);
    const agreeing = noisy.samples.map((s) => {
      const m = s.reduce((a, b) => a + b, 0) / s.length;
      return [m, m, m];
    });
    const wide = twoStageBootstrap({ samples: noisy.samples, clusters: noisy.clusters }, { resamples: 2000, seed: 1 });
    const narrow = twoStageBootstrap({ samples: agreeing, clusters: noisy.clusters }, { resamples: 2000, seed: 1 });
    // Same question means, so the same point estimate; but the shrunk first stage plus the second stage
    // give about the same total spread as the one-stage bootstrap of the question means (no double count).
    expect(wide.mean).toBeCloseTo(narrow.mean, 10);
    const ratio = (wide.ciHigh - wide.ciLow) / (narrow.ciHigh - narrow.ciLow);
    expect(ratio).toBeGreaterThan(0.85);
    expect(ratio).toBeLessThan(1.2);
  });

  it('pairs two conditions question by question (B − A with both sides redrawn)', () => {
    const a = Array.from({ length: 50 }, (_, i) => [i % 2 ? 0 : 100, i % 3 ? 0 : 100]);
    const b = a.map((s) => s.map((x) => Math.min(100, x + 20)));
    const d = twoStageBootstrap({ samples: b, minus: a }, { resamples: 1000, seed: 2 });
    expect(d.mean).toBeGreaterThan(0);
    expect(d.ciLow).toBeLessThanOrEqual(d.mean);
    expect(d.ciHigh).toBeGreaterThanOrEqual(d.mean);
    expect(() => twoStageBootstrap({ samples: b, minus: a.slice(1) })).toThrow(/reference questions/);
  });

  it('splits the variance into between questions and the model’s sampling', () => {
    const normal = normalDrawer(4);
    // Question scores sd 20 (variance 400), sampling sd 15 (variance 225), 5 samples each, unclustered (icc 0).
    const data = simulateSampled({ clusters: 2000, perCluster: 1, icc: 0, sd: 20, truth: 50, samples: 5, samplingSd: 15 }, normal);
    const split = varianceSplit(data.samples, 'mean');
    expect(split.between).toBeGreaterThan(360);
    expect(split.between).toBeLessThan(440);
    expect(split.within).toBeGreaterThan(210);
    expect(split.within).toBeLessThan(240);
    expect(split.samplesPerQuestion).toBe(5);
    // (225/5) / (400 + 225/5) ≈ 0.10; n_eff ≈ n · 400 / 445 ≈ 1,800 questions.
    expect(split.samplingShare).toBeGreaterThan(0.08);
    expect(split.samplingShare).toBeLessThan(0.12);
    expect(split.effectiveQuestions).toBeGreaterThan(1600);
    expect(split.effectiveQuestions).toBeLessThan(1990);
  });

  it('covers the truth ~95% of the time on clustered, sampled data; the plain bootstraps undercover', () => {
    // 60 volumes × 8 questions, ICC 0.3, 3 samples each with sampling sd 25. The script runs 10× the runs.
    const r = sampledCoverageStudy({ clusters: 60, perCluster: 8, icc: 0.3, sd: 20, truth: 50, samples: 3, samplingSd: 25 }, { runs: 300, resamples: 400, seed: 21 });
    // 300 runs: the Monte-Carlo standard error of a 95% coverage is 1.3 points.
    expect(r.twoStage).toBeGreaterThanOrEqual(0.91);
    expect(r.twoStage).toBeLessThanOrEqual(0.985);
    expect(r.plain).toBeLessThan(0.86);
    expect(r.answers).toBeLessThan(r.plain);
  }, 30_000);
});
