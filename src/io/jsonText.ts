import { DataFileError } from '../errors.js';

/** `text` parsed as JSON, or a DataFileError naming `path` and what the parser found (`advice` is appended). */
export function parseJsonText(path: string, text: string, advice = ''): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DataFileError(`${path}: not valid JSON (${(error as Error).message})${advice}`);
  }
}
