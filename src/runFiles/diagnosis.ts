import { z } from 'zod';

/**
 * The diagnostics stage's records: what one answer's claim-level diagnosis holds (stored with the
 * labels it came from, so every metric can be recomputed from a record), and what a summary cell
 * holds (the help/hurt decomposition against a baseline and the claim metrics' means with CIs).
 * Plain zod, imported by the run record (`runFiles/itemRecord.ts`) and the summary.
 */

/** RAGChecker's three labels; only entailment counts. */
export const CLAIM_LABELS = ['entailment', 'neutral', 'contradiction'] as const;
export const ClaimLabelSchema = z.enum(CLAIM_LABELS);
export type ClaimLabel = z.infer<typeof ClaimLabelSchema>;

/** A label, or null for a pair the prefilter did not send to the checker (or a check that failed: see `failed`). */
export const MatrixEntrySchema = ClaimLabelSchema.nullable();
export type MatrixEntry = z.infer<typeof MatrixEntrySchema>;

/** RAGChecker's eleven metrics, in its order: overall, retriever, generator. */
export const CLAIM_METRICS = [
  'precision',
  'recall',
  'f1',
  'claimRecall',
  'contextPrecision',
  'contextUtilization',
  'noiseSensitivityRelevant',
  'noiseSensitivityIrrelevant',
  'hallucination',
  'selfKnowledge',
  'faithfulness',
] as const;
export type ClaimMetric = (typeof CLAIM_METRICS)[number];

/** The metrics that need no passages: the only ones a closed-book answer gets. */
export const CHUNKLESS_METRICS: readonly ClaimMetric[] = ['precision', 'recall', 'f1'];

export const LabelMatricesSchema = z.object({
  /** One label per response claim: is it entailed by the gold answer? */
  responseVsGold: z.array(MatrixEntrySchema),
  /** One label per gold claim: is it entailed by the response? */
  goldVsResponse: z.array(MatrixEntrySchema),
  /** One row per response claim, one entry per passage of the final prompt (`contextIds` order). */
  responseVsChunks: z.array(z.array(MatrixEntrySchema)),
  /** One row per gold claim, one entry per passage of the final prompt (`contextIds` order). */
  goldVsChunks: z.array(z.array(MatrixEntrySchema)),
});
export type LabelMatrices = z.infer<typeof LabelMatricesSchema>;
export type MatrixName = keyof LabelMatrices;

/** One check that could not be made (the call failed or its label could not be parsed after retries). */
export const FailedCheckSchema = z.object({
  /** `responseClaims` / `goldClaims` for a failed extraction, else the matrix. */
  what: z.enum(['responseClaims', 'goldClaims', 'responseVsGold', 'goldVsResponse', 'responseVsChunks', 'goldVsChunks']),
  /** Claim index (matrices); absent for extractions. */
  claim: z.number().int().nonnegative().optional(),
  /** Passage index in `contextIds` (chunk matrices). */
  passage: z.number().int().nonnegative().optional(),
  error: z.string(),
});
export type FailedCheck = z.infer<typeof FailedCheckSchema>;

/** Where the item's gold evidence ended up in this answer (items with gold evidence only). */
export const EVIDENCE_STATUSES = ['inPrompt', 'retrievedNotInPrompt', 'notRetrieved'] as const;

/** Buckets of the best rank at which a gold passage was retrieved. */
export const GOLD_RANK_BUCKETS = ['1', '2-5', '6-10', '11-20', '21-50', '51-100', '>100', 'not retrieved'] as const;
export type GoldRankBucket = (typeof GOLD_RANK_BUCKETS)[number];

export const EvidenceSchema = z.object({
  /** Gold evidence ids the item names (chunk ids, or `page:<n>` for pages of its document). */
  gold: z.array(z.string()),
  status: z.enum(EVIDENCE_STATUSES),
  /** Best (smallest) rank at which a gold passage was retrieved; null when none was. */
  bestRank: z.number().int().positive().nullable(),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

/**
 * The diagnostics' own calls: a separate account beside the answer's `cost`. The first figures are
 * what this answer's diagnosis needs — calls and their estimated tokens, shared gold-side work
 * counted for every answer that needs it — and do not depend on what a cache already held; the
 * `…Sent` figures are what this invocation actually sent for it (lower after a resume, with a shared
 * cache, or when another condition already asked), with the endpoint's reported tokens.
 */
export const DiagnosticsCostSchema = z.object({
  extractorCalls: z.number().int().nonnegative(),
  /** Checker calls this answer's labels need: Σ over its texts of ⌈claims sent against it / claimsPerCall⌉. */
  checkerCalls: z.number().int().nonnegative(),
  /** RAGChecker's all-pairs calls for this answer: (k + 1)·(⌈|R|/5⌉ + ⌈|G|/5⌉), k = passages in the final prompt. */
  allPairsCalls: z.number().int().nonnegative(),
  /** (claim, passage) pairs sent to the checker, and pairs the prefilter kept back (counted as not entailed). */
  pairsChecked: z.number().int().nonnegative(),
  pairsSkipped: z.number().int().nonnegative(),
  /** Estimated tokens of the needed calls (the claim models' own prompts, measured with the project's token counter). */
  promptTokens: z.number().nonnegative(),
  completionTokens: z.number().nonnegative(),
  /** Calls sent by the invocation that diagnosed this answer, and the tokens they used (the endpoint's usage where reported). */
  extractorCallsSent: z.number().int().nonnegative(),
  checkerCallsSent: z.number().int().nonnegative(),
  promptTokensSent: z.number().nonnegative(),
  completionTokensSent: z.number().nonnegative(),
  /** Some sent call reported no usage (always for the offline stand-ins): its tokens were estimated. */
  estimatedTokensSent: z.boolean(),
  durationMs: z.number().nonnegative(),
});
export type DiagnosticsCost = z.infer<typeof DiagnosticsCostSchema>;

export const RecordDiagnosticsSchema = z.object({
  responseClaims: z.array(z.string()),
  goldClaims: z.array(z.string()),
  /** Where the gold claims came from: the benchmark (`rubric`, `answer`) or extraction from the reference. */
  goldClaimsFrom: z.enum(['rubric', 'answer', 'extracted', 'none']),
  /** Passage ids in the order the chunk matrices' columns use (the record's `contextIds`). */
  contextIds: z.array(z.string()),
  labels: LabelMatricesSchema,
  /** Per-answer metrics on 0–1 (×100 happens in the summary); null where a check it needs failed, absent where the condition has no passages. */
  metrics: z.partialRecord(z.enum(CLAIM_METRICS), z.number().nullable()),
  failed: z.array(FailedCheckSchema),
  evidence: EvidenceSchema.optional(),
  diagnosticsCost: DiagnosticsCostSchema,
});
export type RecordDiagnostics = z.infer<typeof RecordDiagnosticsSchema>;

const GroupShareSchema = z.object({ n: z.number().int().nonnegative(), contribution: z.number() });

export const DecompositionSchema = z.object({
  baseline: z.string(),
  delta: z.number(),
  /** Items scored in both the condition and the baseline. */
  n: z.number().int().nonnegative(),
  /** The condition's mean paired difference on those items (= the three contributions' sum). */
  meanDiff: z.number().nullable(),
  helped: GroupShareSchema,
  hurt: GroupShareSchema,
  unchanged: GroupShareSchema,
  /** helped / hurt / unchanged items with gold evidence, by where it ended up; null when no item has gold. */
  byEvidence: z.record(z.enum(['helped', 'hurt', 'unchanged']), z.record(z.enum(EVIDENCE_STATUSES), GroupShareSchema)).nullable(),
  byGoldRank: z.record(z.enum(['helped', 'hurt', 'unchanged']), z.record(z.enum(GOLD_RANK_BUCKETS), GroupShareSchema)).nullable(),
});
export type Decomposition = z.infer<typeof DecompositionSchema>;

export const MetricMeanSchema = z.object({
  mean: z.number().nullable(),
  ciLow: z.number().nullable(),
  ciHigh: z.number().nullable(),
  n: z.number().int().nonnegative(),
  /** Answers diagnosed whose value of this metric could not be computed (a check it needs failed). */
  failed: z.number().int().nonnegative().default(0),
});
export type MetricMean = z.infer<typeof MetricMeanSchema>;

export const CellDiagnosticsSchema = z.object({
  /** Absent for the baseline itself. */
  decomposition: DecompositionSchema.nullable(),
  /** Means ×100 over the cell's diagnosed answers, with bootstrap CIs. */
  claims: z.partialRecord(z.enum(CLAIM_METRICS), MetricMeanSchema),
  diagnosed: z.number().int().nonnegative(),
  /** Means per diagnosed answer. */
  checkerCalls: z.number().nullable(),
  allPairsCalls: z.number().nullable(),
  /**
   * Totals over the cell of what its diagnoses need (calls, estimated tokens): the same after a
   * resume or with another cache; what was actually sent is in the run directory's diagnostics.json.
   */
  diagnosticsCost: z
    .object({
      extractorCalls: z.number(),
      checkerCalls: z.number(),
      allPairsCalls: z.number(),
      pairsChecked: z.number(),
      pairsSkipped: z.number(),
      promptTokens: z.number(),
      completionTokens: z.number(),
    })
    .nullable(),
});
export type CellDiagnostics = z.infer<typeof CellDiagnosticsSchema>;
