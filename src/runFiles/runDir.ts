import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import { latestPerKey, readAppendLog } from '../io/jsonl.js';
import { RunItemRecordSchema, type RunItemRecord } from './itemRecord.js';

export const RUN_FILES = {
  config: 'config.json',
  manifest: 'manifest.json',
  /** What the run was estimated to cost, written before its first answer (the dry run's plan). */
  plan: 'plan.json',
  items: 'items.jsonl',
  summary: 'summary.json',
  summaryCsv: 'summary.csv',
  report: 'report.html',
  /** Present while a process writes the run (one writer at a time; src/app/runLock.ts). Readers ignore it. */
  lock: 'writer.lock',
} as const;

export function runFile(runDir: string, name: keyof typeof RUN_FILES): string {
  return join(runDir, RUN_FILES[name]);
}

export function assertRunDirectory(runDir: string): void {
  if (!existsSync(runFile(runDir, 'config'))) {
    throw new InputError(`${runDir}: not a hisrag run directory (no ${RUN_FILES.config})`);
  }
}

/**
 * Reads items.jsonl. A kill can leave a torn last line (an append cut short): with
 * `repair`, that line is cut off the file so the resumed run appends after the last whole
 * record; without it the torn line is ignored. A bad line anywhere else is an error.
 * When a key appears more than once (a failed item answered again on resume), the last
 * record is the one that counts; the earlier ones stay in the file as history.
 */
export async function readRunRecords(runDir: string, options: { repair?: boolean } = {}): Promise<RunItemRecord[]> {
  return latestPerKey(await readAppendLog(runFile(runDir, 'items'), RunItemRecordSchema, options));
}
