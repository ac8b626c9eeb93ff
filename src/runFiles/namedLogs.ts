import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { InputError } from '../errors.js';
import { JsonlAppender, latestPerKey, readAppendLog } from '../io/jsonl.js';

/**
 * A folder of a run directory with one append-only JSONL log per name (`labels/<annotator>.jsonl`,
 * `judges/<judge>.jsonl`), kept beside the answers and never in items.jsonl. A later line for the
 * same answer (`key`) replaces an earlier one when read; a torn last line (a kill mid-append) is
 * left out, and cut off before the next append so the new lines never join it. One writer per file.
 */
export function namedLogs<T extends { key: string }>(folder: string, nameSchema: z.ZodType<string>, lineSchema: z.ZodType<T>, nameLabel: string) {
  const dir = (runDir: string) => join(runDir, folder);
  /** The name is checked so the file can never leave the folder. */
  const file = (runDir: string, name: string) => {
    const parsed = nameSchema.safeParse(name);
    if (!parsed.success) throw new InputError(`${nameLabel} "${name}": ${parsed.error.issues[0]?.message ?? 'invalid name'}`);
    return join(dir(runDir), `${name}.jsonl`);
  };
  const history = (runDir: string, name: string, options: { repair?: boolean } = {}) => readAppendLog(file(runDir, name), lineSchema, options);
  return {
    file,
    /** Every line of a name's file in file order. */
    history,
    /** The latest line per answer, keeping its first position. */
    latest: async (runDir: string, name: string, options: { repair?: boolean } = {}): Promise<T[]> =>
      latestPerKey(await history(runDir, name, options)),
    /** The names that have a file in the run, sorted. */
    list: async (runDir: string): Promise<string[]> => {
      if (!existsSync(dir(runDir))) return [];
      return (await readdir(dir(runDir)))
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => f.slice(0, -'.jsonl'.length))
        .filter((name) => nameSchema.safeParse(name).success)
        .sort();
    },
    /** Opens a name's file for appending (each append one write and an fsync), a torn last line cut off first. */
    open: async (runDir: string, name: string): Promise<{ append(lines: readonly T[]): Promise<void>; close(): Promise<void> }> => {
      const path = file(runDir, name);
      await mkdir(dir(runDir), { recursive: true });
      if (existsSync(path)) await readAppendLog(path, lineSchema, { repair: true });
      const appender = await JsonlAppender.open(path);
      return { append: (lines) => appender.append(lines.map((line) => lineSchema.parse(line))), close: () => appender.close() };
    },
  };
}
