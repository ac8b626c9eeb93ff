import { z } from 'zod';
import type { BenchmarkItem } from '../benchmarks/types.js';

/** Per-benchmark answer instructions, overridable from the config; `{length}` is the T4 limit. */
export const AnswerInstructionsSchema = z
  .object({
    mcq: z.string(),
    rubric: z.string(),
    rubricWithLength: z.string().describe('Used instead of `rubric` when the item has a length constraint (T4 essays)'),
    longhisdoc: z.string(),
    reference: z.string(),
  })
  .partial()
  .strict();
export type AnswerInstructions = z.infer<typeof AnswerInstructionsSchema>;

export const DEFAULT_ANSWER_INSTRUCTIONS: Required<AnswerInstructions> = {
  mcq: '这是一道选择题，可能有一个或多个正确选项。请在回答的最后用 \\boxed{} 写出全部正确选项的字母，例如 \\boxed{AC}。',
  rubric: '请完整、准确地作答。',
  rubricWithLength: '请完整、准确地作答，全文不超过{length}字（按汉字计）。',
  longhisdoc: '请简洁作答，只给出答案本身，不要解释；若无法从所给内容中找到答案，请回答“无法回答”。',
  reference: '请简洁、准确地作答。',
};

/** The instruction line for one item: MCQ → `\boxed{}` letters, T4 → length limit, LongHisDoc → concise or 无法回答. */
export function answerInstructions(item: BenchmarkItem, overrides: AnswerInstructions = {}): string {
  const texts = { ...DEFAULT_ANSWER_INSTRUCTIONS, ...overrides };
  if (item.kind !== 'rubric') return texts[item.kind];
  return item.lengthConstraint ? texts.rubricWithLength.replaceAll('{length}', String(item.lengthConstraint)) : texts.rubric;
}
