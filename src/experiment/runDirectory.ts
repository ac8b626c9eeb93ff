import { existsSync } from 'node:fs';
import { open, readFile, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { DataFileError, InputError } from '../errors.js';
import { formatZodIssues } from '../config/errors.js';
import { RunItemRecordSchema, type RunItemRecord } from './records.js';

export const RUN_FILES = {
  config: 'config.json',
  manifest: 'manifest.json',
  items: 'items.jsonl',
  summary: 'summary.json',
  summaryCsv: 'summary.csv',
  report: 'report.html',
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
  const path = runFile(runDir, 'items');
  if (!existsSync(path)) return [];
  const text = await readFile(path, 'utf8');
  const byKey = new Map<string, RunItemRecord>();
  let offset = 0;
  let lineNo = 0;
  let goodBytes = 0;
  while (offset < text.length) {
    const nl = text.indexOf('\n', offset);
    const line = nl === -1 ? text.slice(offset) : text.slice(offset, nl);
    const next = nl === -1 ? text.length : nl + 1;
    lineNo++;
    const isLast = next >= text.length;
    if (line.trim()) {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        if (isLast && (nl === -1 || options.repair)) break;
        throw new DataFileError(`${path}:${lineNo}: not valid JSON`);
      }
      if (nl === -1) break; // a record without its newline was cut short mid-append
      const parsed = RunItemRecordSchema.safeParse(value);
      if (!parsed.success) throw new DataFileError(`${path}:${lineNo}: ${formatZodIssues(parsed.error)}`);
      // Later records of a key replace earlier ones (keeping the key's first position).
      byKey.set(parsed.data.key, parsed.data);
    }
    goodBytes += Buffer.byteLength(text.slice(offset, next), 'utf8');
    offset = next;
  }
  if (options.repair) {
    const size = (await stat(path)).size;
    if (goodBytes < size) await truncate(path, goodBytes);
  }
  return [...byKey.values()];
}

export async function ensureFileExists(path: string): Promise<void> {
  const handle = await open(path, 'a');
  await handle.close();
}
