import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { clusteredBootstrap } from './clusteredBootstrap.js';
import { holmAdjust, benjaminiHochbergAdjust } from './multipleComparisons.js';
import { signFlipTest } from './pairedTest.js';
import { twoStageBootstrap } from './samples.js';

/**
 * Synthetic clustered data with a known truth, to check the estimators by simulation
 * (`scripts/simulate-intervals.ts`, `test/scoring/estimatorSimulation.test.ts`): a score is
 * truth + volume effect + question noise, both normal, with the volume effect's share of the
 * variance equal to the intra-cluster correlation — a LongHisDoc-shaped set where questions of one
 * volume share difficulty.
 */
export interface ClusteredDesign {
  clusters: number;
  perCluster: number;
  /** Intra-cluster correlation: the share of a score's variance that is between volumes. */
  icc: number;
  /** Standard deviation of one score (points). */
  sd: number;
  /** The true mean. */
  truth: number;
}

/** Normal deviates from a seeded xoroshiro128+ (Box–Muller). */
export function normalDrawer(seed: number): () => number {
  const rng = xoroshiro128plus(seed);
  const uniform = () => ((rng.next() >>> 0) + 0.5) / 4294967296;
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

export function simulateClustered(design: ClusteredDesign, normal: () => number): { values: Float64Array; clusters: Int32Array } {
  const n = design.clusters * design.perCluster;
  const values = new Float64Array(n);
  const clusters = new Int32Array(n);
  const between = design.sd * Math.sqrt(design.icc);
  const within = design.sd * Math.sqrt(1 - design.icc);
  for (let c = 0, i = 0; c < design.clusters; c++) {
    const volume = between * normal();
    for (let q = 0; q < design.perCluster; q++, i++) {
      values[i] = design.truth + volume + within * normal();
      clusters[i] = c;
    }
  }
  return { values, clusters };
}

export interface CoverageResult {
  runs: number;
  /** Share of runs whose 95% interval from the cluster bootstrap holds the truth. */
  clustered: number;
  /** The same for the plain bootstrap over questions, on the same data. */
  plain: number;
  /** Mean interval widths (points). */
  clusteredWidth: number;
  plainWidth: number;
  /** Mean reported design effect (theory: 1 + (m − 1)·ICC). */
  designEffect: number;
}

/** Coverage of the 95% intervals of the mean over `runs` simulated data sets. */
export function coverageStudy(design: ClusteredDesign, options: { runs: number; resamples: number; seed: number }): CoverageResult {
  const normal = normalDrawer(options.seed);
  let clusteredHits = 0;
  let plainHits = 0;
  let clusteredWidth = 0;
  let plainWidth = 0;
  let deff = 0;
  for (let run = 0; run < options.runs; run++) {
    const data = simulateClustered(design, normal);
    const clustered = clusteredBootstrap(data.values, data.clusters, { resamples: options.resamples, seed: 2 * run + 1 });
    const plain = clusteredBootstrap(data.values, undefined, { resamples: options.resamples, seed: 2 * run + 2 });
    if (clustered.ciLow <= design.truth && design.truth <= clustered.ciHigh) clusteredHits++;
    if (plain.ciLow <= design.truth && design.truth <= plain.ciHigh) plainHits++;
    clusteredWidth += clustered.ciHigh - clustered.ciLow;
    plainWidth += plain.ciHigh - plain.ciLow;
    deff += clustered.designEffect ?? NaN;
  }
  const r = options.runs;
  return { runs: r, clustered: clusteredHits / r, plain: plainHits / r, clusteredWidth: clusteredWidth / r, plainWidth: plainWidth / r, designEffect: deff / r };
}

export interface NullFamilyResult {
  runs: number;
  comparisons: number;
  /** Share of runs with at least one Holm-adjusted p ≤ α (family-wise error). */
  holm: number;
  /** The same with Benjamini–Hochberg-adjusted p (under the complete null, FDR = FWE). */
  benjaminiHochberg: number;
  /** The same with unadjusted p: what a table without adjustment shows. */
  unadjusted: number;
  /** Share of single comparisons with p ≤ α (the test's own size). */
  perComparison: number;
}

/**
 * Family-wise error under the complete null: `comparisons` paired differences per run, each a
 * clustered data set with true difference 0, tested by the clustered sign-flip test.
 */
export function nullFamilyStudy(design: Omit<ClusteredDesign, 'truth'>, options: { runs: number; comparisons: number; flips: number; seed: number; alpha?: number }): NullFamilyResult {
  const alpha = options.alpha ?? 0.05;
  const normal = normalDrawer(options.seed);
  let holm = 0;
  let bh = 0;
  let unadjusted = 0;
  let single = 0;
  for (let run = 0; run < options.runs; run++) {
    const p: number[] = [];
    for (let c = 0; c < options.comparisons; c++) {
      const data = simulateClustered({ ...design, truth: 0 }, normal);
      p.push(signFlipTest(data.values, data.clusters, { flips: options.flips, seed: run * options.comparisons + c + 1 }).p);
    }
    if (holmAdjust(p).some((v) => v <= alpha)) holm++;
    if (benjaminiHochbergAdjust(p).some((v) => v <= alpha)) bh++;
    if (p.some((v) => v <= alpha)) unadjusted++;
    single += p.filter((v) => v <= alpha).length;
  }
  const r = options.runs;
  return { runs: r, comparisons: options.comparisons, holm: holm / r, benjaminiHochberg: bh / r, unadjusted: unadjusted / r, perComparison: single / (r * options.comparisons) };
}

/** A clustered design whose questions are each answered `samples` times, a sample's score = question's score + sampling noise. */
export interface SampledDesign extends ClusteredDesign {
  samples: number;
  /** Standard deviation of the sampling noise of one answer (the model's dice at temperature > 0). */
  samplingSd: number;
}

/** Per question its samples' scores, and its cluster. */
export function simulateSampled(design: SampledDesign, normal: () => number): { samples: number[][]; clusters: Int32Array } {
  const questions = simulateClustered(design, normal);
  const samples: number[][] = [];
  for (let i = 0; i < questions.values.length; i++) {
    const row: number[] = [];
    for (let s = 0; s < design.samples; s++) row.push(questions.values[i]! + design.samplingSd * normal());
    samples.push(row);
  }
  return { samples, clusters: questions.clusters };
}

export interface SampledCoverageResult {
  runs: number;
  /** Clustered two-stage bootstrap (clusters, then samples within a question). */
  twoStage: number;
  /** Plain bootstrap over questions (their samples' mean), ignoring the clusters. */
  plain: number;
  /** Every answer taken as an independent question (what a table that ignores both shows). */
  answers: number;
  twoStageWidth: number;
  plainWidth: number;
  answersWidth: number;
}

/** Coverage of the 95% intervals of the mean with repeated samples. */
export function sampledCoverageStudy(design: SampledDesign, options: { runs: number; resamples: number; seed: number }): SampledCoverageResult {
  const normal = normalDrawer(options.seed);
  const hits = { twoStage: 0, plain: 0, answers: 0 };
  const widths = { twoStage: 0, plain: 0, answers: 0 };
  const covers = (s: { ciLow: number; ciHigh: number }) => s.ciLow <= design.truth && design.truth <= s.ciHigh;
  for (let run = 0; run < options.runs; run++) {
    const data = simulateSampled(design, normal);
    const estimates = {
      twoStage: twoStageBootstrap({ samples: data.samples, clusters: data.clusters }, { resamples: options.resamples, seed: 3 * run + 1 }),
      plain: clusteredBootstrap(data.samples.map((s) => s.reduce((a, b) => a + b, 0) / s.length), undefined, { resamples: options.resamples, seed: 3 * run + 2 }),
      answers: clusteredBootstrap(data.samples.flat(), undefined, { resamples: options.resamples, seed: 3 * run + 3 }),
    };
    for (const name of ['twoStage', 'plain', 'answers'] as const) {
      if (covers(estimates[name])) hits[name]++;
      widths[name] += estimates[name].ciHigh - estimates[name].ciLow;
    }
  }
  const r = options.runs;
  return { runs: r, twoStage: hits.twoStage / r, plain: hits.plain / r, answers: hits.answers / r, twoStageWidth: widths.twoStage / r, plainWidth: widths.plain / r, answersWidth: widths.answers / r };
}
