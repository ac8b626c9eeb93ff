// Proof by simulation of the prediction-powered estimators (docs/scoring.md, "Judges checked against people").
//   node --import tsx scripts/simulate-ppi.ts [--runs 2000] [--resamples 1000]
// 60 volumes × 10 questions × 5 rubric items; a volume's closed-book hit probability uniform on
// [0.2, 0.7], each question ±0.1 of it in each condition; RAG adds 0.09 (true Δ = +9 points). People
// label 150 random questions (both conditions' answers). The judge keeps 95% of hit items as hits
// and marks a missed item as hit 5% of the time on closed-book answers and, when biased, 40% of the
// time on RAG answers. Each run reports the paired Δ and the RAG mean four ways (judge only, labels
// only, PPI, PPI++) and the judge's bias difference, each a 95% clustered interval; the figures are
// the share of runs whose interval holds the design's truth, and the mean widths.
import { judgeStudy, type JudgeStudyDesign, type IntervalRecord } from '../src/statistics/simulatePpi.js';
import { labelsNeeded, momentsFromAgreement } from '../src/statistics/ppi.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const runs = arg('runs', 2000);
const resamples = arg('resamples', 1000);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const line = (name: string, r: IntervalRecord) => `  ${name.padEnd(12)} covers ${pct(r.coverage).padStart(6)}   mean estimate ${r.estimate.toFixed(2).padStart(6)}   mean width ${r.width.toFixed(2)} points`;

const biased: JudgeStudyDesign = { clusters: 60, perCluster: 10, items: 5, hitLow: 0.2, hitHigh: 0.7, jitter: 0.1, effect: 0.09, labelled: 150, keepsHit: 0.95, falseHitBaseline: 0.05, falseHitCondition: 0.4 };
const even: JudgeStudyDesign = { ...biased, falseHitCondition: biased.falseHitBaseline };

for (const [title, design, seed] of [
  ['a judge that over-credits RAG answers (missed item marked hit 40% on RAG, 5% closed-book)', biased, 1],
  ['a judge whose errors are the same in both conditions (missed item marked hit 5%)', even, 2],
] as const) {
  const start = performance.now();
  const r = judgeStudy(design, { runs, resamples, seed });
  console.log(`${title}; ${runs} runs, ${resamples} resamples:`);
  console.log(` Δ RAG − closed-book, truth ${r.truth.delta.toFixed(2)} points (judge's bias difference ${r.truth.biasDifference.toFixed(2)}):`);
  console.log(line('judge only', r.delta.judgeOnly));
  console.log(line('labels only', r.delta.labelsOnly));
  console.log(line('PPI', r.delta.ppi));
  console.log(line('PPI++', r.delta.ppiPlusPlus) + `   mean λ̂ ${r.delta.lambda.toFixed(2)}`);
  console.log(` RAG mean, truth ${r.truth.condition.toFixed(2)} points:`);
  console.log(line('judge only', r.conditionMean.judgeOnly));
  console.log(line('labels only', r.conditionMean.labelsOnly));
  console.log(line('PPI++', r.conditionMean.ppiPlusPlus));
  console.log(` judge's bias, RAG − closed-book, truth ${r.truth.biasDifference.toFixed(2)} points:`);
  console.log(line('bias diff.', r.biasDifference));
  console.log(`  Monte-Carlo standard error of a 95% coverage ±${(100 * Math.sqrt((0.95 * 0.05) / runs)).toFixed(1)} points; ${((performance.now() - start) / 1000).toFixed(1)} s`);
}

// Labels for a target width, under a stated assumption (no pilot): per-question Δ with sd 20 points, judge–human r 0.8, 600 questions.
const moments = momentsFromAgreement(20, 0.8);
for (const width of [8, 6, 5]) {
  console.log(`labels for a 95% interval of Δ ≤ ${width} points wide (600 questions, sd of a Δ 20, judge–human r 0.8): PPI++ ${labelsNeeded(moments, 600, width) ?? 'more than 600'}, labels only ${labelsNeeded({ ...moments, covariance: 0 }, 600, width) ?? 'more than 600'}`);
}
