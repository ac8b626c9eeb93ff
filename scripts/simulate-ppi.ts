// Proof by simulation of the prediction-powered estimators (docs/scoring.md, "Judges checked against people").
//   node --import tsx scripts/simulate-ppi.ts [--runs 2000] [--resamples 1000] [--only unequal]
// The labelled questions are drawn by the project's own draw (statistics/labelDraw.ts, what
// `hisrag annotate` uses), and the estimators weight each label by 1/π of that draw.
// 60 volumes × 10 questions × 5 rubric items; a volume's closed-book hit probability uniform on
// [0.2, 0.7], each question ±0.1 of it in each condition; RAG adds 0.09 (true Δ = +9 points). People
// label 150 random questions (both conditions' answers). The judge keeps 95% of hit items as hits
// and marks a missed item as hit 5% of the time on closed-book answers and, when biased, 40% of the
// time on RAG answers. Each run reports the paired Δ and the RAG mean four ways (judge only, labels
// only, PPI, PPI++) and the judge's bias difference, each a 95% clustered interval; the figures are
// the share of runs whose interval holds the design's truth, and the mean widths.
import { judgeStudy, judgeStudyTruth, type JudgeStudyDesign, type IntervalRecord } from '../src/statistics/simulatePpi.js';
import type { LabelAllocation } from '../src/statistics/labelDraw.js';
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

// Unequal volumes, a judge biased only in the large ones. ProHist-like: 48 topics, each of 20
// questions with probability 1/6 (8 on average) and otherwise of 1, 40 labelled; true Δ 30 points in
// small topics, 40 in large; the judge marks a missed RAG item hit 5% of the time in small topics and
// 60% in large. LongHisDoc-like: 60 volumes, each of 24 questions with probability 1/4 and otherwise
// of 4, 150 labelled; Δ 5 points in small volumes, 12 in large; missed RAG item marked hit 5% / 40%.
const prohist: JudgeStudyDesign = { clusters: 48, perCluster: 1, items: 5, hitLow: 0.1, hitHigh: 0.5, jitter: 0.1, effect: 0.3, labelled: 40, keepsHit: 0.95, falseHitBaseline: 0.05, falseHitCondition: 0.05, large: { share: 1 / 6, size: 20, effect: 0.4, falseHitCondition: 0.6 } };
const longhisdoc: JudgeStudyDesign = { clusters: 60, perCluster: 4, items: 5, hitLow: 0.2, hitHigh: 0.6, jitter: 0.1, effect: 0.05, labelled: 150, keepsHit: 0.95, falseHitBaseline: 0.05, falseHitCondition: 0.05, large: { share: 0.25, size: 24, effect: 0.12, falseHitCondition: 0.4 } };
const draws: [string, LabelAllocation, boolean][] = [
  ['proportional draw (the default), weighted by 1/π', 'proportional', true],
  ['even (round-robin) draw, weighted by 1/π', 'even', true],
  ['even (round-robin) draw, unweighted (before π was recorded)', 'even', false],
];
for (const [title, design, seed] of [
  ['ProHist-like: 48 topics of 1 or 20 questions, judge over-credits RAG only in the large ones', prohist, 11],
  ['LongHisDoc-like: 60 volumes of 4 or 24 questions, judge over-credits RAG only in the large ones', longhisdoc, 12],
] as const) {
  console.log(`${title}; ${runs} runs, ${resamples} resamples; truth Δ ${judgeStudyTruth(design).delta.toFixed(2)} points:`);
  for (const [name, allocation, weighted] of draws) {
    const start = performance.now();
    const r = judgeStudy({ ...design, allocation, weighted }, { runs, resamples, seed });
    console.log(` ${name}:`);
    console.log(line('Δ judge only', r.delta.judgeOnly));
    console.log(line('Δ labels', r.delta.labelsOnly));
    console.log(line('Δ PPI', r.delta.ppi));
    console.log(line('Δ PPI++', r.delta.ppiPlusPlus) + `   mean λ̂ ${r.delta.lambda.toFixed(2)}`);
    console.log(line('RAG PPI++', r.conditionMean.ppiPlusPlus) + `   (truth ${r.truth.condition.toFixed(2)})`);
    console.log(`  ${((performance.now() - start) / 1000).toFixed(1)} s`);
  }
}
if (process.argv.includes('--only')) process.exit(0);

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
