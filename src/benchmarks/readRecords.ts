import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { DataFileError, formatZodIssues } from '../errors.js';
import { jsonlEntries } from '../io/jsonl.js';

export interface RawRecord {
  value: unknown;
  /** Where the record sits, for error messages: `[3]` (JSON array) or `line 4` (JSONL). */
  where: string;
}

export interface RecordFile {
  records: RawRecord[];
  sha256: string;
}

/** A data file's text; one that cannot be read is a DataFileError naming it. */
export async function readDataText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new DataFileError(`${path}: cannot read (${(error as Error).message})`);
  }
}

/**
 * Reads a data file that is either JSONL (one record per line; `.jsonl`/`.ndjson`, or any file
 * whose text is not one JSON value), a JSON array of records, or a JSON object holding such an
 * array under `data`. Errors name the file and the line.
 */
export async function readRecordFile(path: string): Promise<RecordFile> {
  const text = await readDataText(path);
  const sha256 = createHash('sha256').update(text).digest('hex');
  const body = text.replace(/^\uFEFF/, '');
  if (/\.(jsonl|ndjson)$/i.test(path)) return { records: readJsonlRecords(body, path), sha256 };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    // Not one JSON value: JSONL under another name, or broken JSON (then the JSON error is the useful one).
    if (body.trim().split('\n').length > 1) {
      try {
        return { records: readJsonlRecords(body, path), sha256 };
      } catch {
        // fall through to the JSON error
      }
    }
    throw new DataFileError(`${path}: not valid JSON (${(error as Error).message})`);
  }
  const list = Array.isArray(value) ? value : (value as { data?: unknown } | null)?.data;
  if (!Array.isArray(list)) throw new DataFileError(`${path}: expected a JSON array of records, {"data": [records]}, or JSONL (one record per line)`);
  return { records: list.map((record, i) => ({ value: record, where: `[${i}]` })), sha256 };
}

function readJsonlRecords(text: string, path: string): RawRecord[] {
  return jsonlEntries(text).map((entry) => {
    if ('notJson' in entry) throw new DataFileError(`${path}: line ${entry.line}: not valid JSON (${entry.notJson})`);
    return { value: entry.value, where: `line ${entry.line}` };
  });
}

/** Validates one record; the error names file, record position and field. */
export function parseRecord<T>(schema: z.ZodType<T>, record: RawRecord, path: string): T {
  const parsed = schema.safeParse(record.value);
  if (!parsed.success) {
    const prefix = record.where.startsWith('[') ? record.where : '';
    const line = record.where.startsWith('line') ? `${record.where}: ` : '';
    throw new DataFileError(`${path}: ${line}${formatZodIssues(parsed.error, prefix)}`);
  }
  return parsed.data;
}
