import { z } from 'zod';
import { ESTIMATE_UNIT } from '../text/tokenCounter.js';
import { CellDiagnosticsSchema, DecompositionSchema } from './diagnosis.js';

/** A mean with its percentile-bootstrap CI, seeded per estimate so each interval is reproducible on its own. */
export const MeanWithCiSchema = z.strictObject({
  n: z.number().int(),
  mean: z.number().nullable(),
  ciLow: z.number().nullable(),
  ciHigh: z.number().nullable(),
  /** Clusters the interval was bootstrapped over (`scoring.cluster`); absent when over questions. */
  clusters: z.number().int().optional(),
  /** Clustered variance ÷ variance over questions of the mean (Miller 2024, Appendix A); absent when not clustered. */
  designEffect: z.number().nullable().optional(),
});
export type MeanWithCi = z.infer<typeof MeanWithCiSchema>;

/** One cell: both conditions' means on the questions both scored, and the paired difference condition − against. */
export const PairedCellSchema = z.strictObject({
  n: z.number().int().nonnegative(),
  condition: MeanWithCiSchema,
  against: MeanWithCiSchema,
  meanDiff: z.number().nullable(),
  ciLow: z.number().nullable(),
  ciHigh: z.number().nullable(),
  /** Share of bootstrap resamples in which condition − against > 0. */
  sharePositive: z.number().nullable(),
});
export type PairedCell = z.infer<typeof PairedCellSchema>;

export const ModalityComparisonSchema = z.strictObject({
  model: z.string(),
  /** A condition whose prompts showed page images. */
  condition: z.string(),
  /** A text-only condition named in `scoring.versus` (OCR input). */
  against: z.string(),
  overall: PairedCellSchema,
  /** Breakdown key (`evidence_modal`, `category`, `answer_type`) → value → cell. */
  byGroup: z.record(z.string(), z.record(z.string(), PairedCellSchema)),
  /** Helped / hurt / unchanged of the condition against `against` (δ by the metric, as the diagnostics use). */
  decomposition: DecompositionSchema,
});
export type ModalityComparison = z.infer<typeof ModalityComparisonSchema>;

/** The method of a cell: its registry name and its `strategies:` entry's params (secrets redacted). */
// Declared here, not in cellMethod.ts (which reads configs): the viewer's browser client imports this module's schemas.
export const CellMethodSchema = z.strictObject({
  name: z.string(),
  params: z.record(z.string(), z.unknown()),
});
export type CellMethod = z.infer<typeof CellMethodSchema>;

export const CellSummarySchema = z.strictObject({
  model: z.string(),
  condition: z.string(),
  strategy: z.string(),
  /** The method that produced the cell (registry name and its entry's params; external systems included); absent without a config. */
  methodSpec: CellMethodSchema.optional(),
  retriever: z.string().nullable(),
  k: z.number().nullable(),
  /** The depth as a context budget in tokens (`rag@2000tok`); absent for a depth k. */
  contextTokens: z.number().int().optional(),
  /** Mean per answer of the chunks placed in the prompt and their texts' tokens (records with `context`); absent without retrieval. */
  context: z.strictObject({ n: z.number().int(), chunks: z.number(), tokens: z.number(), unit: z.string().optional() }).optional(),
  /** The chunking: the corpus its retriever reads (the first part of its retrieved chunks' ids, the most frequent); absent without retrieval. */
  corpus: z.string().optional(),
  items: z.number().int(),
  scored: z.number().int(),
  failed: z.strictObject({ generation: z.number().int(), judge: z.number().int() }),
  /** Empty answers: scored by the benchmark's rule (0) or, with `scoring.emptyAnswer: failed`, counted as failed. */
  empty: z.number().int().default(0),
  /** Answers whose reranker could not rerank (an unusable LLM ranking) and kept the first-stage order. */
  rerankFallbacks: z.number().int().default(0),
  /** The metric of the cell's mean (`rs`, `accuracy`, …; `mcq+rs` when a benchmark mixes both 0–100 scores). */
  metric: z.string().default(''),
  score: MeanWithCiSchema,
  /** Mean of the unrounded scores (RS before per-item rounding). */
  scoreRaw: z.number().nullable(),
  /** group key (task, type, answer_type ...) → group value → mean with CI. */
  byGroup: z.record(z.string(), z.record(z.string(), MeanWithCiSchema)),
  /** Mean retrieval metrics over items with gold evidence. */
  retrieval: z.record(z.string(), z.number()).nullable(),
  /** The chunking-independent span metrics (scoring/spanMetrics.ts) over the questions with gold spans. */
  spanRetrieval: z.record(z.string(), MeanWithCiSchema).optional(),
  /** Mean secondary metrics (bleu4, rougeL, ...). */
  extra: z.record(z.string(), z.number()),
  truncatedItems: z.number().int(),
  /** Mean cost per scored answer: calls, tokens (the endpoint's usage, or estimated), milliseconds, price. */
  cost: z
    .object({
      n: z.number().int(),
      retrievalCalls: z.number(),
      generationCalls: z.number(),
      promptTokens: z.number(),
      completionTokens: z.number(),
      durationMs: z.number(),
      price: z.number().nullable(),
      estimatedTokens: z.boolean(),
      /** Means per answer of the 429s received and the milliseconds spent waiting for the endpoint's rate limit (absent in older runs). */
      rateLimited: z.number().optional(),
      rateLimitWaitMs: z.number().optional(),
      /** Mean per answer of the calls a batch API answered (batch mode; priced at the model's batchDiscount). */
      batchedCalls: z.number().optional(),
    })
    .nullable()
    .default(null),
  /** Per-item method figures over the cell's answered items: mean (a flag's mean is a share) and total. */
  method: z
    .record(z.string(), z.strictObject({ mean: z.number(), total: z.number(), n: z.number().int(), /** A yes/no figure: its mean is a share. */ flag: z.boolean().default(false) }))
    .default({}),
  /** The diagnostics stage's figures (`hisrag diagnose`, or a config's `diagnostics:`): absent until a run is diagnosed. */
  diagnostics: CellDiagnosticsSchema.optional(),
  /** Repeated samples (`samples: n`): the reducer and the variance split between and within questions; absent with one sample. */
  sampling: z
    .object({
      reducer: z.string(),
      samplesPerQuestion: z.number(),
      between: z.number(),
      within: z.number(),
      samplingShare: z.number(),
      effectiveQuestions: z.number(),
    })
    .optional(),
});
export type CellSummary = z.infer<typeof CellSummarySchema>;

export const PairedDifferenceSchema = z.strictObject({
  model: z.string(),
  condition: z.string(),
  baseline: z.string(),
  n: z.number().int(),
  meanDiff: z.number().nullable(),
  ciLow: z.number().nullable(),
  ciHigh: z.number().nullable(),
  /** Share of bootstrap resamples in which condition − baseline > 0. */
  sharePositive: z.number().nullable(),
  /** Clusters the difference was bootstrapped and tested over; absent when over questions. */
  clusters: z.number().int().optional(),
  /** Clustered ÷ plain variance of the mean difference; absent when not clustered. */
  designEffect: z.number().nullable().optional(),
  /** Two-sided p of "no difference": paired sign-flip permutation test (whole clusters flipped together). */
  p: z.number().nullable().optional(),
  /** p adjusted over `family` by Holm (family-wise error) and by Benjamini–Hochberg (false discoveries). */
  pHolm: z.number().nullable().optional(),
  pBH: z.number().nullable().optional(),
  /** The family of comparisons the adjustment ran over (a `families[].name`). */
  family: z.string().optional(),
});
export type PairedDifference = z.infer<typeof PairedDifferenceSchema>;

export const RunSummarySchema = z.strictObject({
  experiment: z.string(),
  baseline: z.string(),
  bootstrap: z.strictObject({ resamples: z.number().int(), seed: z.number().int(), confidence: z.number() }),
  models: z.array(z.string()),
  conditions: z.array(z.string()),
  totals: z.strictObject({
    items: z.number().int(),
    scored: z.number().int(),
    generationFailed: z.number().int(),
    judgeFailed: z.number().int(),
    empty: z.number().int().default(0),
  }),
  /** The metric of the run's means (its cells' `metric`), named with its scale: `{ id: 'rs', name: 'RS', scale: { min: 0, max: 100 } }`. */
  metric: z
    .strictObject({
      id: z.string(),
      name: z.string(),
      description: z.string(),
      scale: z.strictObject({ min: z.number(), max: z.number() }),
    })
    .optional(),
  cells: z.array(CellSummarySchema),
  paired: z.array(PairedDifferenceSchema),
  /** `scoring.versus`: the further conditions every condition is also compared with (OCR input beside closed-book …). */
  versusConditions: z.array(z.string()).optional(),
  /** Paired differences of every condition against each `versus` condition (`baseline` names it); absent without `versus`. */
  versus: z.array(PairedDifferenceSchema).optional(),
  /** Image-input conditions against each text-only `versus` condition, by modality, type and answer type. */
  byModality: z.array(ModalityComparisonSchema).optional(),
  /** How the run was diagnosed (baseline, δ, extractor, checker, prefilter; stand-ins declared), when it was. */
  diagnostics: z.record(z.string(), z.unknown()).optional(),
  /** The field intervals and tests were clustered over (`scoring.cluster`; LongHisDoc: `doc_id`); null: over questions. */
  cluster: z.string().nullable().optional(),
  /** The families of comparisons whose p-values were adjusted together (Holm, Benjamini–Hochberg). */
  families: z.array(z.lazy(() => ComparisonFamilySchema)).optional(),
  /** Each depth against the next shallower one, and chunkings at equal context; p adjusted over each `family`. */
  depthComparisons: z.array(PairedDifferenceSchema).optional(),
  /** The shape of each score-vs-depth curve (slope over ln k, best k, deepest − best). */
  depthCurves: z.array(z.lazy(() => DepthCurveSchema)).optional(),
  /** The judge checked against the human labels beside the answers (`labels/`), every mean and Δ corrected with them (PPI++); absent without labels. */
  judgeCheck: z.lazy(() => JudgeCheckSummarySchema).optional(),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

/** A family of comparisons whose p-values are adjusted together. */
export const ComparisonFamilySchema = z.strictObject({
  name: z.string(),
  /** The condition every difference of the family is taken against. */
  reference: z.string(),
  /** Comparisons with data (those without have no p). */
  size: z.number().int(),
  /** `depth`: depth steps; `chunking`: chunkings at equal context (`depthComparisons`); absent: differences against `reference` (`paired`, `versus`). */
  kind: z.enum(['depth', 'chunking']).optional(),
});

const IntervalSchema = z.strictObject({ estimate: z.number(), ciLow: z.number(), ciHigh: z.number() });

/** Score against depth for one model × strategy × retriever measured at two depths or more. */
export const DepthCurveSchema = z.strictObject({
  model: z.string(),
  strategy: z.string(),
  retriever: z.string().nullable(),
  /** The conditions, one per depth, in the order of `depths`. */
  conditions: z.array(z.string()),
  depths: z.array(z.number()),
  /** Means over the questions scored at every depth (paired), in the order of `depths`. */
  means: z.array(z.number()),
  n: z.number().int(),
  clusters: z.number().int().optional(),
  /** Least-squares slope of the score against ln k (points per e-fold of k), with its interval and design effect. */
  slope: IntervalSchema.extend({ designEffect: z.number().nullable() }),
  bestK: z.number(),
  /** Bootstrap probability that each depth is the best, in the order of `depths`. */
  probabilityBest: z.array(z.number()),
  /** Mean at the deepest k − mean at the best k, paired, with its interval. */
  deepestMinusBest: IntervalSchema,
  /** The deepest k is below the best and the interval of (deepest − best) excludes 0. */
  deepestBelowBest: z.boolean(),
  /** What `depths` count: passages (`k`, absent in runs from before) or context budgets in tokens (`contextTokens`: `rag@2000tok`). */
  unit: z.enum(['k', 'contextTokens']).optional(),
  /** The chunking: the corpus the series' retriever reads (its cells' `corpus`). */
  corpus: z.string().optional(),
  /** The same curve against mean context tokens (one axis for every chunking); absent when they do not rise with depth. */
  againstTokens: z
    .strictObject({
      tokens: z.array(z.number()),
      slope: IntervalSchema.extend({ designEffect: z.number().nullable() }),
      bestTokens: z.number(),
      probabilityBest: z.array(z.number()),
    })
    .optional(),
});
export type DepthCurve = z.infer<typeof DepthCurveSchema>;


/** An estimate with its interval; null where it is undefined (no labels on one side, a constant rater). */
const OpenIntervalSchema = z.strictObject({ estimate: z.number().nullable(), ciLow: z.number().nullable(), ciHigh: z.number().nullable() });

/** One rater against an annotator (`hisrag judges`' table). */
export const RaterAgreementSchema = z.strictObject({
  judge: z.string(),
  annotator: z.string(),
  answers: z.number().int(),
  units: z.number().int(),
  rubricPearson: OpenIntervalSchema.nullable(),
  answerPearson: OpenIntervalSchema.nullable(),
  kappa: OpenIntervalSchema.nullable(),
  alpha: OpenIntervalSchema.nullable(),
  /** The annotator's labels (between annotators: either side's) are synthetic, a stand-in's: reported apart from a person's. */
  synthetic: z.literal(true).optional(),
});

/** A mean or a paired Δ, judge-only beside corrected with the labels. */
const CorrectedFiguresSchema = z.strictObject({
  model: z.string(),
  condition: z.string(),
  /** Answers (questions, for a Δ) judged, and of them labelled. */
  n: z.number().int(),
  labelled: z.number().int(),
  /** Clusters holding a label (absent in summaries written before it was recorded). */
  labelledClusters: z.number().int().optional(),
  judgeOnly: OpenIntervalSchema,
  labelsOnly: OpenIntervalSchema,
  ppiPlusPlus: OpenIntervalSchema,
  /** PPI++'s λ̂ in the paper's parameterisation (0: the labels alone, 1: PPI). */
  lambda: z.number(),
  /**
   * What a reader must be told beside the figures (`statistics/ppi.ts`'s `PpiCaution`): `few-labels`
   * (under 10 labelled questions), `few-clusters` (labels in under 5 clusters), `labels-all-equal`
   * (every label the same: the interval is a stated Clopper–Pearson bound, not a resampled one).
   */
  caution: z.array(z.enum(['few-labels', 'few-clusters', 'labels-all-equal'])).optional(),
});

export const JudgeCheckSummarySchema = z.strictObject({
  labelledAnswers: z.number().int(),
  /** The annotators whose labels the corrected figures (means, differences) rest on. */
  annotators: z.array(z.string()),
  /** Those labels are declared synthetic (a stand-in's, the offline demo's), not a person's reading. */
  synthetic: z.boolean(),
  /** Synthetic labels left out of the corrected figures because a person's exist (never pooled with them): whose, and how many answers they mark. */
  syntheticLeftOut: z.strictObject({ annotators: z.array(z.string()), answers: z.number().int() }).optional(),
  /**
   * `inclusion`: labels weighted by 1/π of the draw (`labels/sample.json`'s `inclusion`), so the
   * corrected figures stand for the whole run; `equal`: every question counted the same (a sample
   * drawn before π was recorded, or labels outside the draw). Absent in older summaries.
   */
  weights: z.enum(['inclusion', 'equal']).optional(),
  agreement: z.array(RaterAgreementSchema),
  annotatorAgreement: z.array(RaterAgreementSchema),
  /** Per model × condition with labels: corrected mean, and the judge's bias (judge − human) on the labelled answers. */
  means: z.array(CorrectedFiguresSchema.extend({ bias: OpenIntervalSchema })),
  /** Per condition against the baseline: corrected Δ, and the bias difference (the judge's part of Δ) with its share of the judge-only Δ. */
  differences: z.array(CorrectedFiguresSchema.extend({ baseline: z.string(), biasDifference: OpenIntervalSchema.nullable(), judgeShare: z.number().nullable() })),
});
export type JudgeCheckSummary = z.infer<typeof JudgeCheckSummarySchema>;

/** The unit a model's context tokens are counted in, as every surface names it: its tokenizer's ("tokens (o200k_base encoding)"), else the estimate's. */
export function contextUnitOf(summary: { cells: readonly { model: string; context?: { unit?: string | undefined } | undefined }[] }, model: string): string {
  return summary.cells.find((c) => c.model === model && c.context?.unit)?.context?.unit ?? ESTIMATE_UNIT;
}
