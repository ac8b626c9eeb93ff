import { z } from 'zod';
import { RecordedMessageSchema } from './pageImage.js';
import { MethodCostSchema, MethodNotesSchema, TraceStepSchema } from './trace.js';
import { RecordDiagnosticsSchema } from './diagnosis.js';

/** A character range [start, end) of a corpus document's text (`documents.jsonl`). */
const TextSpanSchema = z.object({ doc: z.string(), start: z.number().int().nonnegative(), end: z.number().int().nonnegative() });

/** The shared scorer's verdict on one answer; stored in items.jsonl. */
export const ItemScoreSchema = z.object({
  /** 'scored' counts in means; the failures are excluded from means and counted. */
  status: z.enum(['scored', 'judge_failed', 'generation_failed']),
  /** Primary score on a 0–100 scale (RS rounded per reference, or accuracy × 100). Null unless scored. */
  score: z.number().nullable(),
  /** Unrounded primary score. */
  scoreRaw: z.number().nullable(),
  metric: z.string(),
  verdicts: z.record(z.string(), z.union([z.literal(0), z.literal(1)])).optional(),
  extracted: z.string().optional(),
  judgeRaw: z.string().optional(),
  error: z.string().optional(),
  /** Rule that decided the score without a judge (`empty-answer`, `over-length`, `mcq`). */
  rule: z.string().optional(),
  /** Secondary metrics, e.g. bleu4, rougeL. */
  extra: z.record(z.string(), z.number()).optional(),
});
export type ItemScore = z.infer<typeof ItemScoreSchema>;

/** One retrieved passage as kept in a run record (text kept for the report's drill-down). */
export const RecordedChunkSchema = z.object({
  id: z.string(),
  rank: z.number().int().positive(),
  score: z.number(),
  title: z.string(),
  text: z.string(),
  page: z.number().int().optional(),
  /** Where the passage is in its corpus's documents (its chunk's `meta.spans`): what the chunking-independent span metrics are recomputed from. */
  spans: z.array(TextSpanSchema).optional(),
  /** Reranked retrievers: rank and score in the first-stage list (`rank`/`score` above are the reranked ones). */
  firstStage: z.object({ rank: z.number().int().positive(), score: z.number() }).optional(),
  /** Reranked retrievers: the reranker could not rank this list and the first-stage order was kept (why). */
  rerankFallback: z.string().optional(),
});

/**
 * One line of `items.jsonl`: one benchmark item answered by one model under one condition (a
 * strategy or method, at a retriever and depth). `retrieved` is the union of the passages the
 * method retrieved; `prompt` and `response` are its final step's.
 */
export const RunItemRecordSchema = z.object({
  /** `<model>|<condition>|<benchmark>:<itemId>` (`#<sample>` after the first sample), unique within a run; resume skips keys already present. */
  key: z.string(),
  /** Which of the question's repeated samples this answer is (`samples: n`; 0-based; runs from before samples: 0). */
  sample: z.number().int().nonnegative().optional(),
  itemId: z.string(),
  benchmark: z.string(),
  kind: z.string(),
  category: z.string(),
  task: z.string().optional(),
  question: z.string(),
  model: z.string(),
  condition: z.string(),
  strategy: z.string(),
  retriever: z.string().nullable(),
  k: z.number().int().positive().nullable(),
  /** The condition's depth as a context budget in tokens (`rag@2000tok`); absent for a depth k. */
  contextTokens: z.number().int().positive().optional(),
  /**
   * The context this answer was given: the chunks placed in its prompt (`contextIds`) and their
   * texts' tokens, in the model's own tokens where it names a `tokenizer:` (`unit`: "tokens
   * (o200k_base encoding)"), else by the run's estimate (no `unit`). Absent without retrieval (and
   * in runs from before).
   */
  context: z.object({ chunks: z.number().int().nonnegative(), tokens: z.number().int().nonnegative(), unit: z.string().optional() }).optional(),
  prompt: z.array(RecordedMessageSchema),
  retrieved: z.array(RecordedChunkSchema),
  /** Chunk ids placed in the prompt after the context budget. */
  contextIds: z.array(z.string()),
  truncated: z.number().int().nonnegative(),
  response: z
    .object({
      /** The answer the scorer saw (a chain of thought's final answer, SuRe's chosen candidate, an agent's last reply). */
      text: z.string(),
      /** The final step's whole output, reasoning included. */
      raw: z.string(),
      reasoning: z.string().optional(),
      usage: z.record(z.string(), z.number()).optional(),
      cached: z.boolean().optional(),
      /** The endpoint returned empty completions on every one of this many attempts. */
      emptyAfterAttempts: z.number().int().positive().optional(),
    })
    .nullable(),
  score: ItemScoreSchema,
  retrievalMetrics: z.record(z.string(), z.number()).optional(),
  /** The item's gold evidence as character spans of the retriever's corpus documents (spans given, evidence text placed, LongHisDoc pages or the answer on them): with `retrieved[].spans`, what the span metrics (charRecall, charPrecision, charIoU, covered, coverK, coverChars) are recomputed from. */
  goldSpans: z.array(TextSpanSchema).optional(),
  /** The benchmark's gold evidence pages (LongHisDoc: one-based pages of `docId`), for the viewer to mark the pages a model was shown. */
  evidence: z.object({ docId: z.string().optional(), pages: z.array(z.number().int().positive()) }).optional(),
  /** Breakdown keys for tables (LongHisDoc type, answer type, evidence modality; ProHist task, dynasty...). */
  groups: z.record(z.string(), z.string()),
  error: z.string().optional(),
  /** The method's steps in order (retrievals, generations, …); runs from before methods have none. */
  trace: z.array(TraceStepSchema).default([]),
  /** Calls, tokens and time this answer cost (absent in runs from before methods). */
  cost: MethodCostSchema.optional(),
  /** Per-item figures of the method (adaptive: `retrieved`, `decisionUnparsed`; ircot: `steps` …). */
  methodNotes: MethodNotesSchema.optional(),
  durationMs: z.number().nonnegative(),
  /** Claims, label matrices, per-answer metrics and evidence, added by the diagnostics stage (`hisrag diagnose`). */
  // A diagnosis written by another version of the stage is dropped (the record reads as undiagnosed, and the next `hisrag diagnose` redoes it), never a reason to refuse the run.
  diagnostics: RecordDiagnosticsSchema.optional().catch(undefined),
});
export type RunItemRecord = z.infer<typeof RunItemRecordSchema>;
