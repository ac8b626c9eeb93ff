import { z } from 'zod';
import type { ScoringCompat } from './compat.js';
import { parseJudgeOutput } from './rubric/parseJudgeOutput.js';
import { parseRubric } from './rubric/parseRubric.js';
import { rubricScore } from './rubric/rubricScore.js';
import type { Verdicts } from './types.js';
import { pearson } from '../statistics/agreement.js';

/**
 * One judged answer of a verdict file (JSONL; `hisrag score rubric` output lines are valid). The
 * answer-level value is `score`, else the RS of `rubrics`, else the share of items marked 1. Lines
 * are paired across files by `id`, else by position.
 */
export const VerdictRecordSchema = z
  .looseObject({
    id: z.union([z.string(), z.number()]).optional(),
    verdicts: z.record(z.string(), z.union([z.literal(0), z.literal(1)])).optional(),
    judge_output: z.string().optional(),
    rubrics: z.string().optional(),
    score: z.number().optional(),
  })
  .refine((r) => r.verdicts !== undefined || r.judge_output !== undefined, {
    message: 'needs "verdicts" ({"加分项_1": 1, …}) or "judge_output" (the judge\'s text)',
    path: ['verdicts'],
  });
export type VerdictRecord = z.infer<typeof VerdictRecordSchema>;

export interface JudgeAgreement {
  itemLevel: { r: number; n: number };
  answerLevel: { r: number; n: number };
  /** Answers present in only one of the files. */
  onlyA: number;
  onlyB: number;
}

function verdictsOf(record: VerdictRecord, compat: ScoringCompat): Verdicts {
  return record.verdicts ?? parseJudgeOutput(record.judge_output ?? '', { compat }).verdicts;
}

function answerValue(record: VerdictRecord, verdicts: Verdicts, compat: ScoringCompat): number {
  if (record.score !== undefined) return record.score;
  if (record.rubrics !== undefined) return rubricScore(parseRubric(record.rubrics, { compat }), verdicts).rsRaw;
  const values = Object.values(verdicts);
  return values.length === 0 ? 0 : (100 * values.filter((v) => v === 1).length) / values.length;
}

/**
 * Agreement between two judges (or a judge and a human) on the same answers: Pearson r over
 * rubric items judged by both, and over answer-level scores.
 */
export function judgeAgreement(a: readonly VerdictRecord[], b: readonly VerdictRecord[], options: { compat?: ScoringCompat } = {}): JudgeAgreement {
  const compat = options.compat ?? 'hisrag';
  const keyed = (records: readonly VerdictRecord[]) =>
    new Map(records.map((record, index) => [record.id !== undefined ? String(record.id) : `#${index}`, record]));
  const left = keyed(a);
  const right = keyed(b);
  const itemX: number[] = [];
  const itemY: number[] = [];
  const answerX: number[] = [];
  const answerY: number[] = [];
  for (const [id, recordA] of left) {
    const recordB = right.get(id);
    if (!recordB) continue;
    const va = verdictsOf(recordA, compat);
    const vb = verdictsOf(recordB, compat);
    for (const key of Object.keys(va).sort()) {
      if (!(key in vb)) continue;
      itemX.push(va[key]!);
      itemY.push(vb[key]!);
    }
    answerX.push(answerValue(recordA, va, compat));
    answerY.push(answerValue(recordB, vb, compat));
  }
  return {
    itemLevel: { r: pearson(itemX, itemY), n: itemX.length },
    answerLevel: { r: pearson(answerX, answerY), n: answerX.length },
    onlyA: [...left.keys()].filter((id) => !right.has(id)).length,
    onlyB: [...right.keys()].filter((id) => !left.has(id)).length,
  };
}
