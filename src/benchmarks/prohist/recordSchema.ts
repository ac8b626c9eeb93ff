import { z } from 'zod';

/** `ADEF`-style answer letters. */
export function isOptionLetters(answer: string | undefined): answer is string {
  return answer !== undefined && /^\s*[A-Za-z]+\s*$/.test(answer);
}

/**
 * One ProHist-Bench record as released (schema from the benchmark's README; DESIGN.md).
 * Unknown fields (dynasty, topic, source-analysis extras) are kept and land in `meta`.
 */
export const ProHistRecordSchema = z
  .looseObject({
    id: z.union([z.string().min(1), z.number().int()]).transform(String),
    category: z.string().min(1),
    question: z.string().min(1),
    rubrics: z.string().optional(),
    reference_answer: z.string().optional(),
    length_constraint: z
      .union([z.number().int().positive(), z.string().regex(/^\d+$/, 'expected a number of characters').transform(Number), z.null()])
      .optional(),
    rubric_axis: z.union([z.array(z.string()), z.string()]).optional(),
    answer: z.string().optional().describe('MCQ: the correct option letters (`ADEF`); other categories may carry a free answer'),
    level_of_difficulty: z.union([z.number(), z.string()]).optional(),
  })
  .superRefine((record, ctx) => {
    if (record.category === '选择题' && !isOptionLetters(record.answer)) {
      ctx.addIssue({ code: 'custom', path: ['answer'], message: 'a 选择题 (multiple choice) record needs its answer letters, such as "ADEF"' });
    }
    // An open question is scored by its rubric (Rubric Score) and nothing else: scoring a record
    // without one by another metric would mix metrics in one mean. Letters alone make it MCQ.
    if (record.category !== '选择题' && !isOptionLetters(record.answer) && !record.rubrics?.trim()) {
      ctx.addIssue({
        code: 'custom',
        path: ['rubrics'],
        message:
          'missing: an open ProHist question is scored by its rubric (Rubric Score) and this record has none. ' +
          'Add its rubrics, or set `onUnscorable: skip` on the benchmark to leave such records out (they are counted)',
      });
    }
  });
export type ProHistRecord = z.infer<typeof ProHistRecordSchema>;
