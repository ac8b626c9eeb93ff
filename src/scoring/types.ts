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
