/**
 * Proof by simulation of the prediction-powered estimators (`ppi.ts`): rubric-scored answers of a
 * closed-book baseline and a RAG condition on the same clustered questions, true item hits drawn
 * from each question's hit probability, a judge that may over-credit one condition, and human labels
 * (the true hits) on questions drawn by the project's own label draw (`labelDraw.ts`, as `hisrag
 * annotate` draws them), the same for both conditions. Clusters may differ in size, effect and in
 * how the judge errs (`large`), so a draw that favours small clusters and an estimator that ignores
 * it would show. Every truth is an expectation of the design, known in closed form, so coverage is
 * measured against it (`scripts/simulate-ppi.ts`, `test/statistics/ppi.test.ts`).
 */
import { clusteredBootstrap } from './clusteredBootstrap.js';
import { FastRandom } from './clusters.js';
import { drawLabelled, type LabelAllocation } from './labelDraw.js';
import { correctedDifference, correctedMean, judgeBiasDifference, type JudgedAnswer } from './ppi.js';

export interface JudgeStudyDesign {
  /** Volumes, questions per (ordinary) volume, rubric items per question. */
  clusters: number;
  perCluster: number;
  items: number;
  /** A volume's closed-book hit probability is uniform on [low, high] (its difficulty, shared by its questions). */
  hitLow: number;
  hitHigh: number;
  /** A question's own deviation, uniform on ±jitter (drawn separately for each condition). */
  jitter: number;
  /** True Δ in hit probability, RAG − closed-book (0.09: 9 points). */
  effect: number;
  /** Questions labelled by a person (both conditions' answers). */
  labelled: number;
  /** The judge marks a hit item as hit with this probability, in both conditions. */
  keepsHit: number;
  /** The judge marks a missed item as hit with this probability: closed-book, RAG. */
  falseHitBaseline: number;
  falseHitCondition: number;
  /**
   * Large volumes: each volume is one with probability `share` (drawn afresh in every run), holds
   * `size` questions, and has its own true Δ and its own RAG false-hit rate. Absent: every volume
   * holds `perCluster`.
   */
  large?: { share: number; size: number; effect: number; falseHitCondition: number };
  /** How the labelled questions are spread over the volumes (default `proportional`). */
  allocation?: LabelAllocation;
  /** Whether the estimators are told each question's inclusion probability (default true); false: every label counts the same. */
  weighted?: boolean;
}

/** The volume kinds of a design: their share of the questions, and their true Δ and RAG false-hit rate. */
function volumeKinds(design: JudgeStudyDesign) {
  const small = { mass: (1 - (design.large?.share ?? 0)) * design.perCluster, effect: design.effect, falseHitCondition: design.falseHitCondition };
  if (!design.large) return [{ ...small, mass: 1 }];
  const large = { mass: design.large.share * design.large.size, effect: design.large.effect, falseHitCondition: design.large.falseHitCondition };
  const total = small.mass + large.mass;
  return [
    { ...small, mass: small.mass / total },
    { ...large, mass: large.mass / total },
  ];
}

/** The design's closed-book and RAG answers, judged, with labels on `labelled` questions drawn by `drawLabelled` (scores in points, 0–100). */
export function simulateJudgedPair(design: JudgeStudyDesign, random: FastRandom): { baseline: JudgedAnswer[]; condition: JudgedAnswer[] } {
  const uniform = () => random.word() / 4294967296;
  const answer = (p: number, falseHit: number, key: string, cluster: number): JudgedAnswer => {
    let hits = 0;
    let judged = 0;
    for (let item = 0; item < design.items; item++) {
      const hit = uniform() < p;
      hits += hit ? 1 : 0;
      judged += uniform() < (hit ? design.keepsHit : falseHit) ? 1 : 0;
    }
    return { key, cluster, judge: (100 * judged) / design.items, human: (100 * hits) / design.items };
  };
  const baseline: JudgedAnswer[] = [];
  const condition: JudgedAnswer[] = [];
  const members = new Map<string, string[]>();
  for (let c = 0, q = 0; c < design.clusters; c++) {
    const large = design.large !== undefined && uniform() < design.large.share;
    const size = large ? design.large!.size : design.perCluster;
    const effect = large ? design.large!.effect : design.effect;
    const falseHit = large ? design.large!.falseHitCondition : design.falseHitCondition;
    const difficulty = design.hitLow + (design.hitHigh - design.hitLow) * uniform();
    const keys: string[] = [];
    for (let j = 0; j < size; j++, q++) {
      const key = `q${q}`;
      const pBase = difficulty + design.jitter * (2 * uniform() - 1);
      const pRag = difficulty + effect + design.jitter * (2 * uniform() - 1);
      baseline.push(answer(pBase, design.falseHitBaseline, key, c));
      condition.push(answer(pRag, falseHit, key, c));
      keys.push(key);
    }
    members.set(`v${c}`, keys);
  }
  const { inclusion, keys } = drawLabelled(members, design.labelled, design.allocation ?? 'proportional', random);
  const drawn = new Set(keys);
  const label = (a: JudgedAnswer): JudgedAnswer => ({ ...a, human: drawn.has(a.key) ? a.human! : null, ...(design.weighted === false ? {} : { inclusion: inclusion.get(a.key)! }) });
  return { baseline: baseline.map(label), condition: condition.map(label) };
}

/** The design's expectations, in points: true means, Δ, and the judge's bias on each condition and its difference (per question, over the volume kinds). */
export function judgeStudyTruth(design: JudgeStudyDesign) {
  const pBase = (design.hitLow + design.hitHigh) / 2;
  // E[judge − human] per item = −(1 − keepsHit)·p + falseHit·(1 − p): linear in p, so exact at E[p].
  const bias = (p: number, falseHit: number) => 100 * (-(1 - design.keepsHit) * p + falseHit * (1 - p));
  let delta = 0;
  let biasCondition = 0;
  for (const kind of volumeKinds(design)) {
    delta += kind.mass * 100 * kind.effect;
    biasCondition += kind.mass * bias(pBase + kind.effect, kind.falseHitCondition);
  }
  const biasBaseline = bias(pBase, design.falseHitBaseline);
  return { baseline: 100 * pBase, condition: 100 * pBase + delta, delta, biasBaseline, biasCondition, biasDifference: biasCondition - biasBaseline };
}

export interface IntervalRecord {
  /** Share of runs whose interval holds the truth. */
  coverage: number;
  /** Mean interval width and mean estimate (points). */
  width: number;
  estimate: number;
}

export interface JudgeStudyResult {
  runs: number;
  truth: ReturnType<typeof judgeStudyTruth>;
  /** The paired Δ (RAG − closed-book). */
  delta: { judgeOnly: IntervalRecord; labelsOnly: IntervalRecord; ppi: IntervalRecord; ppiPlusPlus: IntervalRecord; lambda: number };
  /** The RAG condition's mean. */
  conditionMean: { judgeOnly: IntervalRecord; labelsOnly: IntervalRecord; ppiPlusPlus: IntervalRecord };
  /** The judge's bias difference (RAG − closed-book) on the labelled questions. */
  biasDifference: IntervalRecord;
}

/** Coverage and width of each 95% interval over `runs` simulated studies. */
export function judgeStudy(design: JudgeStudyDesign, options: { runs: number; resamples: number; seed: number }): JudgeStudyResult {
  const truth = judgeStudyTruth(design);
  const random = new FastRandom(options.seed);
  const record = () => ({ hits: 0, width: 0, estimate: 0 });
  const tally = { dJudge: record(), dLabels: record(), dPpi: record(), dTuned: record(), mJudge: record(), mLabels: record(), mTuned: record(), bias: record() };
  const add = (r: ReturnType<typeof record>, i: { estimate: number; ciLow: number; ciHigh: number }, target: number) => {
    if (i.ciLow <= target && target <= i.ciHigh) r.hits++;
    r.width += i.ciHigh - i.ciLow;
    r.estimate += i.estimate;
  };
  let lambda = 0;
  for (let run = 0; run < options.runs; run++) {
    const { baseline, condition } = simulateJudgedPair(design, random);
    const bootstrap = (salt: number) => ({ resamples: options.resamples, seed: 4 * run + salt });
    const delta = correctedDifference(condition, baseline, bootstrap(1));
    // The judge-only Δ as a run reports it today: the paired cluster bootstrap of the judge's scores.
    const judgeOnly = clusteredBootstrap(
      condition.map((c, i) => c.judge - baseline[i]!.judge),
      condition.map((c) => c.cluster!),
      bootstrap(1),
    );
    add(tally.dJudge, { estimate: judgeOnly.mean, ciLow: judgeOnly.ciLow, ciHigh: judgeOnly.ciHigh }, truth.delta);
    add(tally.dLabels, delta.labelsOnly, truth.delta);
    add(tally.dPpi, delta.ppi, truth.delta);
    add(tally.dTuned, delta.ppiPlusPlus, truth.delta);
    lambda += delta.ppiPlusPlus.lambda;
    const mean = correctedMean(condition, bootstrap(2));
    add(tally.mJudge, mean.judgeOnly, truth.condition);
    add(tally.mLabels, mean.labelsOnly, truth.condition);
    add(tally.mTuned, mean.ppiPlusPlus, truth.condition);
    add(tally.bias, judgeBiasDifference(condition, baseline, bootstrap(3)), truth.biasDifference);
  }
  const r = options.runs;
  const out = (t: ReturnType<typeof record>): IntervalRecord => ({ coverage: t.hits / r, width: t.width / r, estimate: t.estimate / r });
  return {
    runs: r,
    truth,
    delta: { judgeOnly: out(tally.dJudge), labelsOnly: out(tally.dLabels), ppi: out(tally.dPpi), ppiPlusPlus: out(tally.dTuned), lambda: lambda / r },
    conditionMean: { judgeOnly: out(tally.mJudge), labelsOnly: out(tally.mLabels), ppiPlusPlus: out(tally.mTuned) },
    biasDifference: out(tally.bias),
  };
}
