import { z } from 'zod';
import type { Generator } from '../generation/types.js';

/** One numbered rubric item with its summed weight (negative in the deduction half). */
export interface RubricItem {
  half: 'bonus' | 'deduction';
  /** One-based number as written in the rubric. */
  number: number;
  text: string;
  weight: number;
}

/** Judge verdicts keyed as in the reference format: `加分项_1`, `减分项_2`. */
export type Verdicts = Record<string, 0 | 1>;

export interface JudgeRequest {
  question: string;
  answer: string;
  rubricText: string;
  rubricItems: RubricItem[];
  referenceAnswer?: string;
}

export type JudgeOutcome =
  | { ok: true; verdicts: Verdicts; raw: string; strayLines: number; attempts: number }
  | { ok: false; error: string; raw: string; attempts: number };

/** LLM judge or offline lexical judge, chosen by name in the config. */
export interface Judge {
  readonly name: string;
  readonly model: string;
  /** The LLM behind the judge, if any (a batch-mode run drives its batch queue). */
  readonly generator?: Generator;
  judge(request: JudgeRequest): Promise<JudgeOutcome>;
}

/** Turns a free LongHisDoc answer into the answer type's format. */
export interface AnswerExtractor {
  readonly name: string;
  /** The LLM behind the extractor, if any (a batch-mode run drives its batch queue). */
  readonly generator?: Generator;
  extract(input: { question: string; response: string; answerType: string }): Promise<string>;
}

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
