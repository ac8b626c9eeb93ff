import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { formatZodIssues } from '../config/errors.js';
import { DataFileError } from '../errors.js';

export interface RawRecord {
  value: unknown;
  /** Where the record sits, for error messages: `[3]` (JSON array) or `line 4` (JSONL). */
  where: string;
}

export interface RecordFile {
  records: RawRecord[];
  sha256: string;
}

/**
 * Reads a data file that is either a JSON array of records, a JSON object holding such an array
 * under `data`, or JSONL (one record per line). Errors name the file and the line.
 */
export async function readRecordFile(path: string): Promise<RecordFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new DataFileError(`${path}: cannot read (${(error as Error).message})`);
  }
  const sha256 = createHash('sha256').update(text).digest('hex');
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (trimmed.startsWith('[') || (trimmed.startsWith('{') && !isJsonl(trimmed))) {
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      throw new DataFileError(`${path}: not valid JSON (${(error as Error).message})`);
    }
    const list = Array.isArray(value) ? value : (value as { data?: unknown }).data;
    if (!Array.isArray(list)) throw new DataFileError(`${path}: expected a JSON array of records (or JSONL, one record per line)`);
    return { records: list.map((record, i) => ({ value: record, where: `[${i}]` })), sha256 };
  }
  const records: RawRecord[] = [];
  trimmed.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      records.push({ value: JSON.parse(line), where: `line ${i + 1}` });
    } catch (error) {
      throw new DataFileError(`${path}: line ${i + 1}: not valid JSON (${(error as Error).message})`);
    }
  });
  return { records, sha256 };
}

/** JSONL when the first line alone is a complete JSON object and more lines follow. */
function isJsonl(text: string): boolean {
  const newline = text.indexOf('\n');
  if (newline < 0) return false;
  try {
    JSON.parse(text.slice(0, newline));
    return text.slice(newline + 1).trim().length > 0;
  } catch {
    return false;
  }
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
