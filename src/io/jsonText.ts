import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { DataFileError, parseWith } from '../errors.js';

/** `text` parsed as JSON, or a DataFileError naming `path` and what the parser found (`advice` is appended). */
export function parseJsonText(path: string, text: string, advice = ''): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DataFileError(`${path}: not valid JSON (${(error as Error).message})${advice}`);
  }
}

/**
 * A JSON file checked against its schema; undefined only when there is no such file. A damaged file
 * is never taken for a missing one: it is a DataFileError naming the file and each field at fault.
 */
export function readJsonFile<T>(path: string, schema: z.ZodType<T>, advice = ''): T | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DataFileError(`${path}: cannot be read (${(error as Error).message})`);
  }
  return parseWith(schema, parseJsonText(path, text, advice), (problems) => new DataFileError(problems.split('\n').map((line) => `${path}: ${line}`).join('\n')));
}
