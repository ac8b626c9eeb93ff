/**
 * hisrag's statistics against the reference implementations the field uses: vectors written by
 * scripts/golden/statistics.py (statsmodels, scipy, scikit-learn) and transcribed from Krippendorff
 * (2011), read from test/golden/. No Python at test time.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cohensKappa, krippendorffAlpha, pearson, pearsonWithInterval, type Label } from '../../src/statistics/agreement.js';
import { clusteredBootstrap } from '../../src/statistics/clusteredBootstrap.js';
import { designEffect } from '../../src/statistics/clusters.js';
import { benjaminiHochbergAdjust, holmAdjust } from '../../src/statistics/multipleComparisons.js';
import { signFlipTest } from '../../src/statistics/pairedTest.js';

const vectors = <T>(name: string): T & { version?: string; reference: string } => JSON.parse(readFileSync(new URL(`../golden/${name}`, import.meta.url), 'utf8'));

describe('Holm and Benjamini–Hochberg', () => {
  const golden = vectors<{ cases: { p: number[]; holm: number[]; bh: number[] }[] }>('statsmodels-multipletests.json');
  it.each(golden.cases.map((c) => [c.p.length, c] as const))(`equal ${golden.version}'s multipletests on a family of %i`, (_m, c) => {
    holmAdjust(c.p).forEach((v, i) => expect(v).toBeCloseTo(c.holm[i]!, 12));
    benjaminiHochbergAdjust(c.p).forEach((v, i) => expect(v).toBeCloseTo(c.bh[i]!, 12));
  });

  it('leave NaN members out of the family: the rest adjust as a family of their own', () => {
    const c = golden.cases[0]!;
    const withGaps = [NaN, ...c.p.slice(0, 2), NaN, ...c.p.slice(2)];
    const holm = holmAdjust(withGaps);
    expect(holm[0]).toBeNaN();
    expect(holm[3]).toBeNaN();
    expect(holm.filter((v) => !Number.isNaN(v))).toEqual(holmAdjust(c.p));
  });
});

describe("Pearson's r and its Fisher-z interval", () => {
  const golden = vectors<{ cases: { x: number[]; y: number[]; r: number; ci95: [number, number]; ci90: [number, number] }[] }>('scipy-pearson.json');
  it.each(golden.cases.map((c) => [c.x.length, c] as const))(`equal ${golden.version}'s pearsonr and confidence_interval (n = %i)`, (_n, c) => {
    expect(pearson(c.x, c.y)).toBeCloseTo(c.r, 12);
    const e95 = pearsonWithInterval(c.x, c.y);
    expect(e95.method).toBe('fisher-z');
    // normalQuantile (Acklam) is good to about 1e-9.
    expect(e95.ciLow).toBeCloseTo(c.ci95[0], 7);
    expect(e95.ciHigh).toBeCloseTo(c.ci95[1], 7);
    const e90 = pearsonWithInterval(c.x, c.y, { level: 0.9 });
    expect(e90.ciLow).toBeCloseTo(c.ci90[0], 7);
    expect(e90.ciHigh).toBeCloseTo(c.ci90[1], 7);
  });
});

describe("Cohen's κ", () => {
  const golden = vectors<{ cases: { a: Label[]; b: Label[]; note: string; kappa: number }[] }>('sklearn-cohen-kappa.json');
  it.each(golden.cases.map((c) => [c.note, c] as const))(`equals ${golden.version}'s cohen_kappa_score: %s`, (_note, c) => {
    expect(cohensKappa(c.a, c.b, { resamples: 50 }).value).toBeCloseTo(c.kappa, 12);
  });
});

describe("Krippendorff's α (nominal) on the worked examples of Krippendorff (2011)", () => {
  const golden = vectors<{ examples: { section: string; observers: Record<string, Label[]>; alpha: { nominal: number }; pairableUnits?: number; pairableValues?: number }[] }>('krippendorff-2011.json');
  it.each(golden.examples.map((e) => [e.section, e] as const))('%s', (_section, e) => {
    const rows = Object.values(e.observers);
    const units = rows[0]!.map((_v, u) => rows.map((row) => row[u]));
    const alpha = krippendorffAlpha(units, { resamples: 50 });
    // The paper prints three decimals.
    expect(alpha.value.toFixed(3)).toBe(e.alpha.nominal.toFixed(3));
    if (e.pairableUnits !== undefined) expect(alpha.units).toBe(e.pairableUnits);
    if (e.pairableValues !== undefined) expect(alpha.pairableValues).toBe(e.pairableValues);
  });
});

describe("Krippendorff's α (nominal) against the krippendorff package on random data with missing labels", () => {
  const golden = vectors<{ cases: { raters: Label[][]; note: string; alpha: number }[]; paperExamplesByThePackage: Record<string, number> }>('krippendorff-package.json');
  it.each(golden.cases.map((c) => [c.note, c] as const))(`equals ${golden.version}: %s`, (_note, c) => {
    const units = c.raters[0]!.map((_v, u) => c.raters.map((row) => row[u]));
    expect(krippendorffAlpha(units, { resamples: 50 }).value).toBeCloseTo(c.alpha, 12);
  });

  it("agrees with the paper's printed α on the transcribed examples (a check on the transcription)", () => {
    const paper = vectors<{ examples: { section: string; alpha: { nominal: number } }[] }>('krippendorff-2011.json');
    for (const e of paper.examples) expect(golden.paperExamplesByThePackage[e.section]).toBe(e.alpha.nominal);
  });
});

describe('cluster-robust standard error of a mean', () => {
  const golden = vectors<{ cases: { values: number[]; clusters: string[]; note: string; mean: number; clusterSe: number; plainSe: number }[] }>('statsmodels-cluster-se.json');
  it.each(golden.cases.map((c) => [c.note, c] as const))(`equals ${golden.version}'s cluster-robust OLS (G/(G − 1) correction): %s`, (_note, c) => {
    const d = designEffect(c.values, c.clusters);
    expect(Math.sqrt(d.clusteredVariance)).toBeCloseTo(c.clusterSe, 10);
    expect(Math.sqrt(d.iidVariance)).toBeCloseTo(c.plainSe, 10);
    expect(d.designEffect!).toBeCloseTo((c.clusterSe / c.plainSe) ** 2, 9);
  });

  it("gives the cluster bootstrap's spread: its interval is about ±1.96 of statsmodels' SE without the G/(G − 1)", () => {
    // 60 volumes × 6 alike questions: the bootstrap's variance of the mean is Σ(S_c − n_c·x̄)²/n², the sandwich before its G/(G − 1).
    const c = golden.cases.find((x) => x.note.startsWith('60 volumes'))!;
    const G = new Set(c.clusters).size;
    const se = c.clusterSe * Math.sqrt((G - 1) / G);
    const b = clusteredBootstrap(c.values, c.clusters, { resamples: 20_000, seed: 1 });
    expect(b.mean).toBeCloseTo(c.mean, 10);
    expect((b.ciHigh - b.ciLow) / (2 * 1.959964 * se)).toBeGreaterThan(0.93);
    expect((b.ciHigh - b.ciLow) / (2 * 1.959964 * se)).toBeLessThan(1.07);
  });
});

describe('clustered sign-flip test', () => {
  const golden = vectors<{ cases: { diffs: number[]; clusters: string[] | null; note: string; p: number; patterns: number }[] }>('scipy-sign-flip.json');
  it.each(golden.cases.map((c) => [c.note, c] as const))(`equals ${golden.version}'s exact permutation_test: %s`, (_note, c) => {
    const r = signFlipTest(c.diffs, c.clusters ?? undefined);
    expect(r.exact).toBe(true);
    expect(r.flips).toBe(c.patterns);
    expect(r.p).toBeCloseTo(c.p, 12);
  });
});
