import { z } from 'zod';
import { ItemScoreSchema } from './itemRecord.js';
import { namedLogs } from './namedLogs.js';

/**
 * Verdicts of further judges on a run's answers (`hisrag rejudge`): `judges/<name>.jsonl`, one file
 * per judge (never items.jsonl, whose score is the run's judge of record).
 */
export const JUDGE_VERDICT_VERSION = 1;

/** A panel judge's name as it stands in a file name; `judge` (the run's own) and `majority` (the panel's) are taken. */
export const PanelJudgeNameSchema = z
  .string()
  .regex(/^[\p{L}\p{N}_-][\p{L}\p{N}._-]{0,63}$/u, { error: 'expected a judge name of letters, digits, "-", "_" or "." (at most 64)' })
  .refine((name) => name !== 'judge' && name !== 'majority', { error: '"judge" (the run\'s own) and "majority" (the panel\'s) are taken' });

export const JudgeVerdictSchema = z.strictObject({
  version: z.literal(JUDGE_VERDICT_VERSION),
  /** The answer's record key in items.jsonl. */
  key: z.string().min(1),
  /** The panel judge's name (the file's) and what it is: the judge implementation and its model. */
  judge: z.string().min(1),
  implementation: z.string().min(1),
  model: z.string().min(1),
  /** The answer scored by this judge, as the run's scorer scores it (rubric verdicts, score, or why it failed). */
  score: ItemScoreSchema,
  /** ISO time the verdict was recorded. */
  at: z.string().min(1),
});
export type JudgeVerdict = z.infer<typeof JudgeVerdictSchema>;

const logs = namedLogs('judges', PanelJudgeNameSchema, JudgeVerdictSchema, 'judge name');

/** One judge's verdicts, the latest per answer (keeping its first position). */
export const readJudgeVerdicts = (runDir: string, name: string, options: { repair?: boolean } = {}): Promise<JudgeVerdict[]> => logs.latest(runDir, name, options);
/** The panel judges that have a verdict file in the run, sorted by name. */
export const listPanelJudges = logs.list;
/** Opens a judge's file for appending, a torn last line cut off first (one writer per file). */
export const openJudgeVerdictLog = logs.open;
