// Proof by simulation of hisrag's estimators, and the bootstrap's speed (docs/scoring.md).
//   node --import tsx scripts/simulate-intervals.ts [--runs 2000]
// Coverage: 60 volumes × 8 questions, intra-cluster correlation 0.3 (design effect ≈ 3.1): the
// share of runs whose 95% interval holds the true mean, for the cluster bootstrap and for the plain
// bootstrap over questions on the same data. Family-wise error: 20 null comparisons per run, the
// clustered sign-flip test, Holm / BH / no adjustment. Repeated samples: the same volumes, 3 samples
// per question with sampling noise, covered by the two-stage bootstrap (clusters, then samples), the
// plain bootstrap over questions and one over answers. Speed: 10,000 resamples and 9,999 sign flips
// over 4,000 questions in 400 clusters, for 128 comparisons, on one core; and the two-stage bootstrap
// of 128 paired differences over 4,000 questions × 3 samples (each side) in 400 clusters.
import { clusteredBootstrap } from '../src/statistics/clusteredBootstrap.js';
import { signFlipTest } from '../src/statistics/pairedTest.js';
import { coverageStudy, normalDrawer, nullFamilyStudy, sampledCoverageStudy, simulateClustered, simulateSampled } from '../src/statistics/simulate.js';
import { twoStageBootstrap } from '../src/statistics/samples.js';
import { powerStudy } from '../src/statistics/power.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const runs = arg('runs', 2000);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

const design = { clusters: 60, perCluster: 8, icc: 0.3, sd: 25 };
let start = performance.now();
const coverage = coverageStudy({ ...design, truth: 50 }, { runs, resamples: 1000, seed: 1 });
console.log(`coverage of 95% intervals, ${runs} runs, ${design.clusters} volumes × ${design.perCluster} questions, ICC ${design.icc}:`);
console.log(`  cluster bootstrap   ${pct(coverage.clustered)}  (mean width ${coverage.clusteredWidth.toFixed(2)} points; mean design effect ${coverage.designEffect.toFixed(2)}, theory ${(1 + (design.perCluster - 1) * design.icc).toFixed(2)})`);
console.log(`  plain bootstrap     ${pct(coverage.plain)}  (mean width ${coverage.plainWidth.toFixed(2)} points)`);
console.log(`  Monte-Carlo standard error ±${(100 * Math.sqrt(0.95 * 0.05 / runs)).toFixed(1)} points; ${((performance.now() - start) / 1000).toFixed(1)} s`);

start = performance.now();
const sampledDesign = { clusters: 60, perCluster: 8, icc: 0.3, sd: 20, truth: 50, samples: 3, samplingSd: 25 };
const sampled = sampledCoverageStudy(sampledDesign, { runs, resamples: 1000, seed: 5 });
console.log(`coverage with repeated samples, ${runs} runs, ${sampledDesign.clusters} volumes × ${sampledDesign.perCluster} questions × ${sampledDesign.samples} samples, ICC ${sampledDesign.icc}, question sd ${sampledDesign.sd}, sampling sd ${sampledDesign.samplingSd}:`);
console.log(`  two-stage bootstrap (volumes, then samples)  ${pct(sampled.twoStage)}  (mean width ${sampled.twoStageWidth.toFixed(2)} points)`);
console.log(`  plain bootstrap over questions               ${pct(sampled.plain)}  (mean width ${sampled.plainWidth.toFixed(2)} points)`);
console.log(`  plain bootstrap over answers                 ${pct(sampled.answers)}  (mean width ${sampled.answersWidth.toFixed(2)} points); ${((performance.now() - start) / 1000).toFixed(1)} s`);

start = performance.now();
const family = nullFamilyStudy(design, { runs: Math.round(runs / 2), comparisons: 20, flips: 1999, seed: 2 });
console.log(`family-wise error under the null, ${family.runs} runs × ${family.comparisons} comparisons (clustered sign-flip test, α = 0.05):`);
console.log(`  Holm ${pct(family.holm)}   Benjamini–Hochberg ${pct(family.benjaminiHochberg)}   unadjusted ${pct(family.unadjusted)}   single test ${pct(family.perComparison)}; ${((performance.now() - start) / 1000).toFixed(1)} s`);

// Speed: 128 comparisons of 4,000 paired differences in 400 clusters.
const normal = normalDrawer(3);
const comparisons = Array.from({ length: 128 }, () => simulateClustered({ clusters: 400, perCluster: 10, icc: 0.3, sd: 25, truth: 1 }, normal));
// Wall time and this process's CPU time: on a shared machine the wall time includes waiting for a core.
const timed = (work: () => void) => {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  work();
  const used = process.cpuUsage(cpu);
  return `${((performance.now() - wall) / 1000).toFixed(2)} s wall, ${((used.user + used.system) / 1e6).toFixed(2)} s CPU`;
};
const bootstrap = timed(() => comparisons.forEach((c, i) => clusteredBootstrap(c.values, c.clusters, { resamples: 10_000, seed: i })));
const test = timed(() => comparisons.forEach((c, i) => signFlipTest(c.values, c.clusters, { flips: 9999, seed: i })));
console.log(`speed, one thread: 128 comparisons × 4,000 questions in 400 clusters: cluster bootstrap (10,000 resamples) ${bootstrap}; sign-flip test (9,999 flips) ${test}`);
const sampledDesignForSpeed = { clusters: 400, perCluster: 10, icc: 0.3, sd: 25, truth: 1, samples: 3, samplingSd: 20 };
const sampledComparisons = Array.from({ length: 128 }, () => ({ condition: simulateSampled(sampledDesignForSpeed, normal), reference: simulateSampled({ ...sampledDesignForSpeed, truth: 0 }, normal) }));
const twoStage = timed(() =>
  sampledComparisons.forEach((c, i) => twoStageBootstrap({ samples: c.condition.samples, minus: c.reference.samples, clusters: c.condition.clusters }, { resamples: 10_000, seed: i })),
);
console.log(`speed, one thread: 128 paired differences × 4,000 questions × 3 samples (each side) in 400 clusters: two-stage bootstrap (10,000 resamples) ${twoStage}`);

// Power: a true difference equal to the reported minimum detectable difference (80% power, α 0.05),
// 40 volumes × 10 questions, ICC 0.2, σ_d 30, detected by the clustered sign-flip test.
start = performance.now();
const power = powerStudy({ clusters: 40, perCluster: 10, icc: 0.2, sd: 30 }, { runs, flips: 1999, seed: 4 });
console.log(
  `power at the reported MDD (${power.mdd.toFixed(2)} points; 40 volumes × 10 questions, ICC 0.2, σ_d 30), ${power.runs} runs: ` +
    `detected in ${pct(power.detected)} (target 80%; Monte-Carlo standard error ±${(100 * Math.sqrt(0.8 * 0.2 / runs)).toFixed(1)} points); ${((performance.now() - start) / 1000).toFixed(1)} s`,
);
