import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { InputError } from '../errors.js';
import { JsonlAppender, readAppendLog } from '../io/jsonl.js';
import { ItemScoreSchema } from '../scoring/types.js';

/**
 * Verdicts of further judges on a run's answers (`hisrag rejudge`), kept beside the answers and
 * never in `items.jsonl` (whose score is the run's judge of record): `judges/<name>.jsonl` in the run
 * directory, one file per judge, append-only. A later line for the same answer (`key`) replaces an
 * earlier one when read; a torn last line (a kill mid-append) is left out and cut off on the next append.
 */
export const JUDGES_DIR = 'judges';
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

export function judgesDir(runDir: string): string {
  return join(runDir, JUDGES_DIR);
}

/** `judges/<name>.jsonl`; the name is checked so it can never leave the folder. */
export function judgeVerdictFile(runDir: string, name: string): string {
  const parsed = PanelJudgeNameSchema.safeParse(name);
  if (!parsed.success) throw new InputError(`judge name "${name}": ${parsed.error.issues[0]?.message ?? 'invalid name'}`);
  return join(judgesDir(runDir), `${name}.jsonl`);
}

/** One judge's verdicts, the latest per answer (keeping its first position). */
export async function readJudgeVerdicts(runDir: string, name: string, options: { repair?: boolean } = {}): Promise<JudgeVerdict[]> {
  const byKey = new Map<string, JudgeVerdict>();
  for (const line of await readAppendLog(judgeVerdictFile(runDir, name), JudgeVerdictSchema, options)) byKey.set(line.key, line);
  return [...byKey.values()];
}

/** The panel judges that have a verdict file in the run, sorted by name. */
export async function listPanelJudges(runDir: string): Promise<string[]> {
  const dir = judgesDir(runDir);
  if (!existsSync(dir)) return [];
  return (await readdir(dir))
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => f.slice(0, -'.jsonl'.length))
    .filter((name) => PanelJudgeNameSchema.safeParse(name).success)
    .sort();
}

/** Opens a judge's file for appending, a torn last line cut off first (one writer per file). */
export async function openJudgeVerdictLog(runDir: string, name: string): Promise<{ append(lines: JudgeVerdict[]): Promise<void>; close(): Promise<void> }> {
  const file = judgeVerdictFile(runDir, name);
  await mkdir(judgesDir(runDir), { recursive: true });
  if (existsSync(file)) await readAppendLog(file, JudgeVerdictSchema, { repair: true });
  const appender = await JsonlAppender.open(file);
  return {
    append: (lines) => appender.append(lines.map((line) => JudgeVerdictSchema.parse(line))),
    close: () => appender.close(),
  };
}
