import { z } from 'zod';

/**
 * Human labels of a run's answers: `labels/<annotator>.jsonl` (see `namedLogs`; earlier lines for an
 * answer stay as history, so no mark is lost), and `labels/sample.json`, the sample `hisrag annotate` drew.
 */
export const LABELS_DIR = 'labels';
export const LABEL_SAMPLE_FILE = 'sample.json';
export const LABEL_FILE_VERSION = 1;

/** An annotator's name as it stands in a file name: letters, digits, `-`, `_`, `.` (not starting with a dot). */
export const AnnotatorSchema = z
  .string()
  .regex(/^[\p{L}\p{N}_-][\p{L}\p{N}._-]{0,63}$/u, { error: 'expected an annotator name of letters, digits, "-", "_" or "." (at most 64)' });

/** One human label of one answer: each rubric item marked hit (1) or miss (0), or the answer marked correct/incorrect. */
export const AnswerLabelSchema = z.strictObject({
  version: z.literal(LABEL_FILE_VERSION),
  /** The answer's record key in items.jsonl. */
  key: z.string().min(1),
  /** The question (item key), model, condition and sample the record key stands for (for readers that join without the records). */
  itemKey: z.string().min(1),
  model: z.string().min(1),
  condition: z.string().min(1),
  sample: z.number().int().nonnegative().default(0),
  annotator: AnnotatorSchema,
  /** Rubric benchmarks: the judge's verdict keys (`加分项_1`, `减分项_2`) → 0/1, every item of the answer's rubric. */
  verdicts: z.record(z.string(), z.union([z.literal(0), z.literal(1)])).optional(),
  /** Benchmarks scored right/wrong (accuracy): 1 correct, 0 incorrect. */
  correct: z.union([z.literal(0), z.literal(1)]).optional(),
  /** The score the marks imply on the benchmark's scale (0–100), computed with the benchmark's own rule. */
  score: z.number().nullable(),
  /** Free text the annotator left. */
  note: z.string().optional(),
  /** ISO time the label was saved. */
  at: z.string().min(1),
  /** Where the label was made: the viewer's annotation page, or imported from a file (named). */
  source: z.union([z.literal('viewer'), z.string().regex(/^import:/)]),
  /** Labels a run declares synthetic (the offline demo's) say so, and every surface says so. */
  synthetic: z.boolean().optional(),
});
export type AnswerLabel = z.infer<typeof AnswerLabelSchema>;

/** The sample to label that `hisrag annotate` drew: the same questions across the baseline and the chosen conditions. */
export const LabelSampleSchema = z.strictObject({
  version: z.literal(LABEL_FILE_VERSION),
  /** When it was drawn, with what seed and settings. */
  drawnAt: z.string(),
  seed: z.number().int(),
  baseline: z.string(),
  conditions: z.array(z.string()).min(1),
  /** Per condition (including the baseline), how many answers were drawn. */
  size: z.number().int().positive(),
  /** Cluster field the draw was spread over (`scoring.cluster`), or null. */
  cluster: z.string().nullable(),
  /**
   * How the draw was spread over the clusters (`statistics/labelDraw.ts`): `proportional` (every
   * question equally likely) or `even` (round-robin, a small cluster's questions likelier). Absent in
   * samples drawn before it was recorded.
   */
  allocation: z.enum(['proportional', 'even']).optional(),
  /** The questions drawn (item keys), in the order an annotator sees them. */
  itemKeys: z.array(z.string()).min(1),
  /** The answers to label (record keys), grouped by question, in annotation order. */
  keys: z.array(z.string()).min(1),
  /**
   * Each drawn question's inclusion probability π (item key → π in (0, 1]): the corrected estimates
   * weight its labels by 1/π. Absent in samples drawn before it was recorded: those are read as if
   * every question had the same chance (which a round-robin draw over clusters of unequal size did
   * not give; redraw to weight them).
   */
  inclusion: z.record(z.string(), z.number().gt(0).max(1)).optional(),
});
export type LabelSample = z.infer<typeof LabelSampleSchema>;
