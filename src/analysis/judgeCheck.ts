/**
 * A run's judge checked against its human labels: agreement (Pearson, κ, α), bias, and means and Δ
 * corrected with the labels (PPI++), all computed by `statistics/`. Only first samples (`sample` 0)
 * count: labels are of single answers, and the corrected estimators pair one answer per question.
 */
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import type { AnswerLabel } from '../runFiles/labels.js';
import type { JudgeCheckSummary } from '../runFiles/summary.js';
import { cohensKappa, krippendorffAlpha, pearsonWithInterval, type AlphaEstimate, type CorrelationEstimate, type KappaEstimate } from '../statistics/agreement.js';
import type { BootstrapOptions } from '../statistics/bootstrap.js';
import { correctedDifference, correctedMean, judgeBias, judgeBiasDifference, type JudgedAnswer, type PredictionPoweredEstimate } from '../statistics/ppi.js';
import { isScored, itemKeyOf, runStatistics } from './observations.js';

export interface JudgeCheckOptions {
  baseline: string;
  /** `scoring.cluster`, as for every other interval of the run. */
  cluster?: string;
  resamples: number;
  seed: number;
  /** The run's judge as the table names it (default `judge`). */
  judgeName?: string;
  /**
   * Each question's inclusion probability in the label draw (item key → π, `labels/sample.json`):
   * labels are weighted by 1/π. Used only when every labelled question has one; otherwise (a sample
   * drawn before π was recorded, labels of questions outside the draw) every question counts the same.
   */
  inclusion?: ReadonlyMap<string, number> | undefined;
}

/** One judge (or annotator) against one annotator, on the answers both marked. */
export interface AgreementRow {
  judge: string;
  annotator: string;
  /** Answers both scored. */
  answers: number;
  /** Rubric items (or right/wrong marks) both gave. */
  units: number;
  /** Pearson r over rubric items, 0/1 (the paper's rubric level); null without rubric marks. */
  rubricPearson: CorrelationEstimate | null;
  /** Pearson r over answers' scores (the paper's answer level, RS). */
  answerPearson: CorrelationEstimate | null;
  /** Cohen's κ over the same units as the rubric-level r. */
  kappa: KappaEstimate | null;
  /** Krippendorff's α (nominal) over the same units. */
  alpha: AlphaEstimate | null;
  /** The annotator's labels (or, between annotators, either side's) are declared synthetic: reported apart, never pooled with a person's. */
  synthetic?: true;
}

/** What one rater said about one answer: its score on the benchmark's scale and its 0/1 marks per unit (rubric item, or `correct`). */
interface Marks {
  score: number | null;
  units: Map<string, 0 | 1>;
}

/** A judge's score of one answer: the score and the rubric verdicts behind it. */
export interface JudgedScore {
  score: number | null;
  verdicts?: Record<string, 0 | 1> | undefined;
}

function judgeMarks(judged: JudgedScore): Marks {
  const units = new Map<string, 0 | 1>(Object.entries(judged.verdicts ?? {}));
  if (!judged.verdicts && judged.score !== null) units.set('correct', judged.score >= 50 ? 1 : 0);
  return { score: judged.score, units };
}

function labelMarks(label: AnswerLabel): Marks {
  const units = new Map<string, 0 | 1>(Object.entries(label.verdicts ?? {}));
  if (label.correct !== undefined) units.set('correct', label.correct);
  return { score: label.score, units };
}

/** Agreement of two raters over the answers both marked (`a` and `b` keyed by record key). */
function agreementOf(judge: string, annotator: string, a: Map<string, Marks>, b: Map<string, Marks>, bootstrap: BootstrapOptions): AgreementRow {
  const unitA: (0 | 1)[] = [];
  const unitB: (0 | 1)[] = [];
  const unitAnswer: string[] = [];
  const scoreA: number[] = [];
  const scoreB: number[] = [];
  let rubric = false;
  // Answers in record-key order, items in verdict-key order: the figures recompute exactly (to the last bit) from the files.
  for (const key of [...a.keys()].sort()) {
    const marksA = a.get(key)!;
    const marksB = b.get(key);
    if (!marksB) continue;
    if (marksA.score !== null && marksB.score !== null) {
      scoreA.push(marksA.score);
      scoreB.push(marksB.score);
    }
    for (const [unit, va] of [...marksA.units].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
      const vb = marksB.units.get(unit);
      if (vb === undefined) continue;
      if (unit !== 'correct') rubric = true;
      unitA.push(va);
      unitB.push(vb);
      unitAnswer.push(key);
    }
  }
  // Rubric items of one answer are not independent: resample whole answers.
  const byAnswer = { ...bootstrap, clusters: unitAnswer };
  const units = unitA.length;
  return {
    judge,
    annotator,
    answers: scoreA.length,
    units,
    rubricPearson: rubric && units > 1 ? pearsonWithInterval(unitA, unitB, byAnswer) : null,
    answerPearson: scoreA.length > 1 ? pearsonWithInterval(scoreA, scoreB) : null,
    kappa: units ? cohensKappa(unitA, unitB, byAnswer) : null,
    alpha: units
      ? krippendorffAlpha(
          unitA.map((v, i) => [v, unitB[i]!]),
          byAnswer,
        )
      : null,
  };
}

const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;

/**
 * The labels the corrected figures rest on. Synthetic labels (a stand-in's) are never pooled with a
 * person's: where any person labelled the run, the synthetic ones are left out of the corrected
 * figures (their agreement with the judge is still reported, apart); without a person's, they stand in.
 */
function labelBasis(labels: readonly AnswerLabel[]): { basis: AnswerLabel[]; leftOut: { annotators: string[]; answers: number } | null } {
  const people = labels.filter((l) => l.synthetic !== true);
  if (!people.length) return { basis: [...labels], leftOut: null };
  const synthetic = labels.filter((l) => l.synthetic === true);
  if (!synthetic.length) return { basis: people, leftOut: null };
  return { basis: people, leftOut: { annotators: [...new Set(synthetic.map((l) => l.annotator))].sort(), answers: new Set(synthetic.map((l) => l.key)).size } };
}

/** One rater per annotator and kind of label (a person's, synthetic), sorted by name, a person's first: the two kinds are never one rater. */
function ratersOf(labels: readonly AnswerLabel[]): { annotator: string; synthetic: boolean; marks: Map<string, Marks> }[] {
  const raters = new Map<string, { annotator: string; synthetic: boolean; marks: Map<string, Marks> }>();
  for (const l of labels) {
    const synthetic = l.synthetic === true;
    const id = `${l.annotator}\u0000${synthetic ? 1 : 0}`;
    if (!raters.has(id)) raters.set(id, { annotator: l.annotator, synthetic, marks: new Map() });
    raters.get(id)!.marks.set(l.key, labelMarks(l));
  }
  return [...raters.values()].sort((a, b) => (a.annotator < b.annotator ? -1 : a.annotator > b.annotator ? 1 : Number(a.synthetic) - Number(b.synthetic)));
}

/** The judge-selection table, bias per condition and corrected estimates of one run's judge against its labels. */
export function checkJudge(records: readonly RunItemRecord[], labels: readonly AnswerLabel[], options: JudgeCheckOptions) {
  const bootstrap: BootstrapOptions = { resamples: options.resamples, seed: options.seed };
  const judgeName = options.judgeName ?? 'judge';
  const answers = records.filter((r) => (r.sample ?? 0) === 0);
  const byKey = new Map(answers.map((r) => [r.key, r]));
  const known = labels.filter((l) => byKey.has(l.key));
  const { basis, leftOut } = labelBasis(known);
  const raters = ratersOf(known);

  const judged = new Map(answers.filter(isScored).map((r) => [r.key, judgeMarks(r.score)]));
  const flagged = (row: AgreementRow, synthetic: boolean): AgreementRow => (synthetic ? { ...row, synthetic: true } : row);
  const agreement = raters.map((r) => flagged(agreementOf(judgeName, r.annotator, judged, r.marks, bootstrap), r.synthetic));
  const annotatorAgreement = raters.flatMap((a, i) =>
    raters.slice(i + 1).flatMap((b) => {
      const row = agreementOf(a.annotator, b.annotator, a.marks, b.marks, bootstrap);
      return row.answers || row.units ? [flagged(row, a.synthetic || b.synthetic)] : [];
    }),
  );

  // The human score of an answer: the mean of its annotators' scores.
  const humanScores = new Map<string, number[]>();
  for (const l of basis) if (l.score !== null) humanScores.set(l.key, [...(humanScores.get(l.key) ?? []), l.score]);
  const labelledQuestions = new Set(answers.filter((r) => humanScores.has(r.key)).map(itemKeyOf));
  const inclusion = options.inclusion && [...labelledQuestions].every((k) => options.inclusion!.has(k)) ? options.inclusion : undefined;
  const stats = runStatistics(answers, { ...(options.cluster !== undefined ? { cluster: options.cluster } : {}), resamples: options.resamples, seed: options.seed });
  const cells = new Map<string, JudgedAnswer[]>();
  const cellOrder: { model: string; condition: string }[] = [];
  for (const r of answers.filter(isScored)) {
    const cell = `${r.model}\u0000${r.condition}`;
    if (!cells.has(cell)) {
      cells.set(cell, []);
      cellOrder.push({ model: r.model, condition: r.condition });
    }
    const human = humanScores.get(r.key);
    cells.get(cell)!.push({
      key: itemKeyOf(r),
      judge: r.score.score!,
      ...(human ? { human: mean(human) } : {}),
      ...(inclusion?.has(itemKeyOf(r)) ? { inclusion: inclusion.get(itemKeyOf(r))! } : {}),
      ...(stats.clusterKey ? { cluster: stats.clusterKey(r) } : {}),
    });
  }
  const isLabelled = (a: JudgedAnswer) => a.human !== undefined;
  // Per labelled cell: judge-only, labels-only, PPI and PPI++ means, and the bias mean(judge − human).
  const conditions = cellOrder.flatMap(({ model, condition }) => {
    const list = cells.get(`${model}\u0000${condition}`)!;
    return list.some(isLabelled) ? [{ model, condition, mean: correctedMean(list, bootstrap), bias: judgeBias(list, bootstrap) }] : [];
  });
  // Per condition: judge-only and corrected Δ, and the bias difference (questions labelled in both sides).
  const deltas = cellOrder.flatMap(({ model, condition }) => {
    const base = cells.get(`${model}\u0000${options.baseline}`);
    if (condition === options.baseline || !base) return [];
    const list = cells.get(`${model}\u0000${condition}`)!;
    const delta = correctedDifference(list, base, bootstrap);
    if (delta.labelled === 0) return [];
    return [{ model, condition, baseline: options.baseline, delta, biasDifference: judgeBiasDifference(list, base, bootstrap) }];
  });
  return {
    labelledAnswers: humanScores.size,
    // Whose labels the corrected figures rest on, and whether those are synthetic: every surface says so.
    annotators: [...new Set(basis.map((l) => l.annotator))].sort(),
    synthetic: basis.some((l) => l.synthetic === true),
    syntheticLeftOut: leftOut,
    // Whether the corrected figures weight labels by the draw's 1/π or count every question the same.
    weights: inclusion ? ('inclusion' as const) : ('equal' as const),
    agreement,
    annotatorAgreement,
    conditions,
    deltas,
  };
}

type RaterAgreement = JudgeCheckSummary['agreement'][number];

/** Another judge of the same answers (a panel judge of `hisrag rejudge`, or the majority) against each annotator. */
export function panelJudgeAgreement(judge: string, scores: ReadonlyMap<string, JudgedScore>, labels: readonly AnswerLabel[], options: { resamples: number; seed: number }): RaterAgreement[] {
  const judged = new Map([...scores].filter(([, s]) => s.score !== null).map(([key, s]) => [key, judgeMarks(s)]));
  const known = labels.filter((l) => judged.has(l.key));
  return ratersOf(known).map((r) => {
    const row = agreementOf(judge, r.annotator, judged, r.marks, { resamples: options.resamples, seed: options.seed });
    return raterRow(r.synthetic ? { ...row, synthetic: true } : row);
  });
}

const finite = (v: number) => (Number.isFinite(v) ? v : null);
const open = (e: { estimate?: number; value?: number; ciLow: number; ciHigh: number }) => ({ estimate: finite(e.estimate ?? e.value!), ciLow: finite(e.ciLow), ciHigh: finite(e.ciHigh) });
const openOrNull = (e: Parameters<typeof open>[0] | null) => (e ? open(e) : null);
const raterRow = (r: AgreementRow): RaterAgreement => ({
  judge: r.judge,
  annotator: r.annotator,
  answers: r.answers,
  units: r.units,
  rubricPearson: openOrNull(r.rubricPearson),
  answerPearson: openOrNull(r.answerPearson),
  kappa: openOrNull(r.kappa),
  alpha: openOrNull(r.alpha),
  ...(r.synthetic ? { synthetic: true as const } : {}),
});
const corrected = (e: PredictionPoweredEstimate) => ({
  n: e.n,
  labelled: e.labelled,
  labelledClusters: e.labelledClusters,
  judgeOnly: open(e.judgeOnly),
  labelsOnly: open(e.labelsOnly),
  ppiPlusPlus: open(e.ppiPlusPlus),
  lambda: e.ppiPlusPlus.lambda,
  caution: e.caution,
});

export type JudgeCheck = ReturnType<typeof checkJudge>;

/** The check as summary.json keeps it (undefined figures as null); undefined for a run without labels, so its summary does not change. */
export function judgeCheckSummary(check: JudgeCheck): JudgeCheckSummary | undefined {
  if (check.labelledAnswers === 0) return undefined;
  return {
    labelledAnswers: check.labelledAnswers,
    annotators: check.annotators,
    synthetic: check.synthetic,
    ...(check.syntheticLeftOut ? { syntheticLeftOut: check.syntheticLeftOut } : {}),
    weights: check.weights,
    agreement: check.agreement.map(raterRow),
    annotatorAgreement: check.annotatorAgreement.map(raterRow),
    means: check.conditions.map((c) => ({ model: c.model, condition: c.condition, ...corrected(c.mean), bias: open(c.bias) })),
    differences: check.deltas.map((d) => ({
      model: d.model,
      condition: d.condition,
      baseline: d.baseline,
      ...corrected(d.delta),
      biasDifference: openOrNull(d.biasDifference),
      judgeShare: d.biasDifference?.shareOfJudgeDelta ?? null,
    })),
  };
}
