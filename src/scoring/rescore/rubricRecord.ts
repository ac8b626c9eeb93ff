import { z } from 'zod';
import type { BenchmarkItem } from '../../benchmarks/types.js';
import { PROHIST_TASKS } from '../../benchmarks/types.js';
import type { ScoringCompat } from '../compat.js';
import { parseJudgeOutput } from '../rubric/parseJudgeOutput.js';
import { parseRubric } from '../rubric/parseRubric.js';
import { scoreItem, scoreRubricVerdicts } from '../scoreItem.js';
import type { Judge } from '../types.js';
import type { ItemScore } from '../../runFiles/itemRecord.js';

const LengthConstraint = z.union([
  z.number().int().positive(),
  z
    .string()
    .regex(/^\s*\d+(\.0*)?\s*$/, 'expected a positive integer')
    .transform((s) => Math.trunc(Number(s))),
]);

/**
 * One line of `hisrag score rubric` input: a saved ProHist-Bench answer and its judge output.
 * MCQ lines (`category` 选择题) need `answer` and `response`; every other line needs
 * `rubrics` and `judge_output`. `response` enables the empty-answer and T4 length rules.
 */
export const SavedRubricRecordSchema = z
  .looseObject({
    id: z.union([z.string(), z.number()]).optional(),
    category: z.string().optional(),
    question: z.string().optional(),
    rubrics: z.string().optional(),
    judge_output: z.string().optional(),
    response: z.string().optional(),
    length_constraint: z.union([LengthConstraint, z.null()]).optional(),
    answer: z.string().optional(),
  })
  .superRefine((record, ctx) => {
    const required: Array<'answer' | 'response' | 'rubrics' | 'judge_output'> =
      record.category === '选择题' ? ['answer', 'response'] : ['rubrics', 'judge_output'];
    for (const field of required) {
      if (record[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'missing' });
    }
  });
export type SavedRubricRecord = z.infer<typeof SavedRubricRecordSchema>;

/** A judge that replays a saved judge output. */
function savedOutputJudge(output: string, compat: ScoringCompat): Judge {
  return {
    name: 'saved',
    model: 'saved-output',
    judge: async () => {
      const parsed = parseJudgeOutput(output, { compat });
      return { ok: true, verdicts: parsed.verdicts, raw: output, strayLines: parsed.strayLines, attempts: 1 };
    },
  };
}

/**
 * Re-scores a saved answer with the shared scorer. With a `response` the record goes through
 * `scoreItem` (think stripping, empty answer, T4 length, MCQ); without one, RS comes from the
 * judge output alone.
 */
export async function rescoreRubricRecord(record: SavedRubricRecord, compat: ScoringCompat): Promise<ItemScore> {
  const category = record.category ?? '';
  const lengthConstraint = record.length_constraint ?? undefined;
  if (record.response !== undefined) {
    const task = PROHIST_TASKS[category];
    const item: BenchmarkItem = {
      id: String(record.id ?? ''),
      benchmark: 'prohist',
      kind: category === '选择题' ? 'mcq' : 'rubric',
      question: record.question ?? '',
      category,
      ...(task ? { task } : {}),
      ...(record.rubrics !== undefined ? { rubrics: record.rubrics } : {}),
      ...(lengthConstraint !== undefined ? { lengthConstraint } : {}),
      ...(record.answer !== undefined ? { answer: record.answer } : {}),
      meta: {},
    };
    return scoreItem(item, record.response, { judge: savedOutputJudge(record.judge_output ?? '', compat), compat, textMetrics: false });
  }
  const items = parseRubric(record.rubrics ?? '', { compat });
  const parsed = parseJudgeOutput(record.judge_output ?? '', { compat });
  return scoreRubricVerdicts(items, parsed.verdicts, {
    compat,
    ...(record.judge_output !== undefined ? { judgeRaw: record.judge_output } : {}),
    strayLines: parsed.strayLines,
  });
}
