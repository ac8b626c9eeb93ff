import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { DataFileError, formatPath } from '../errors.js';
import { atomicWriteJson } from '../io/atomicWrite.js';

/**
 * How one JSON file of a run directory is read. Files written from now on carry `version` and are
 * checked strictly (an unknown or misspelled field, or a wrong type, is an error naming the file and
 * the field); a file without `version` was written before files had versions and is read with
 * `legacy`, then brought to today's shape by `upgrade`.
 */
export interface VersionedFormat<Current, Read = Current> {
  /** The version written from now on. */
  version: number;
  /** The shape of the current version (a strict object with `version: z.literal(version)`). */
  current: z.ZodType<Current>;
  /** The shape files had before `version` existed. */
  legacy: z.ZodType<unknown>;
  /** An unversioned file's value (after `legacy`) in the shape readers get. */
  upgrade: (old: unknown) => Read;
}

/** `summary.json: cells[2].mean: expected number, received string`: each problem on its own line, each naming the file. */
function describeIssues(file: string, error: z.ZodError): string {
  return error.issues
    .flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => `${file}: ${formatPath([...issue.path, key])}: unknown field`)
        : [`${file}: ${formatPath(issue.path)}: ${issue.message}`],
    )
    .join('\n');
}

/** Removes, in place, the fields an `unrecognized_keys` issue names (a legacy file's fields that later versions dropped). */
function dropUnknownKeys(value: unknown, issues: z.ZodError["issues"]): boolean {
  let dropped = false;
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    let at: unknown = value;
    for (const key of issue.path) at = at && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[key] : undefined;
    if (!at || typeof at !== 'object') continue;
    for (const key of issue.keys) delete (at as Record<string, unknown>)[key];
    dropped = true;
  }
  return dropped;
}

/** Checks a legacy file: wrong types are errors, fields that no version reads any more are left out. */
function parseLegacy(file: string, value: unknown, schema: z.ZodType<unknown>): unknown {
  for (let attempt = 0; ; attempt++) {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    if (attempt >= 8 || parsed.error.issues.some((i) => i.code !== 'unrecognized_keys') || !dropUnknownKeys(value, parsed.error.issues)) {
      throw new DataFileError(describeIssues(file, parsed.error));
    }
  }
}

/** Validates a run file's text (named `file` in errors) and gives it in the shape of today's version. */
export function parseVersionedJson<Current, Read>(file: string, text: string, format: VersionedFormat<Current, Read>): Current | Read {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DataFileError(`${file}: not valid JSON, truncated or damaged (${(error as Error).message})`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new DataFileError(`${file}: expected a JSON object`);
  const version = (value as { version?: unknown }).version;
  if (version === undefined) return format.upgrade(parseLegacy(file, value, format.legacy));
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) throw new DataFileError(`${file}: version: expected a whole number from 1`);
  if (version > format.version) {
    throw new DataFileError(`${file}: version ${version} was written by a newer hisrag; this one reads versions up to ${format.version}`);
  }
  const parsed = format.current.safeParse(value);
  if (!parsed.success) throw new DataFileError(describeIssues(file, parsed.error));
  return parsed.data;
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** Reads and validates a run file; undefined when it does not exist. */
export async function readVersionedJson<Current, Read>(file: string, format: VersionedFormat<Current, Read>): Promise<Current | Read | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw new DataFileError(`${file}: cannot be read (${(error as Error).message})`);
  }
  return parseVersionedJson(file, text, format);
}

/**
 * A run file whose version 1 holds the fields the unversioned files before it had (`fields`): the
 * schema of version 1, a reader (either version, given back without `version`) and a writer (version 1).
 */
export function firstVersionFile<Shape extends z.ZodRawShape>(fields: z.ZodObject<Shape>) {
  type Value = z.infer<typeof fields>;
  const schema = fields.extend({ version: z.literal(1) });
  const format: VersionedFormat<unknown, Value> = { version: 1, current: schema, legacy: fields, upgrade: (old) => old as Value };
  const withoutVersion = (read: unknown): Value => {
    const { version: _version, ...value } = read as Value & { version?: number };
    return value as Value;
  };
  return {
    schema,
    parse: (file: string, text: string): Value => withoutVersion(parseVersionedJson(file, text, format)),
    read: async (file: string): Promise<Value | undefined> => {
      const read = await readVersionedJson(file, format);
      return read === undefined ? undefined : withoutVersion(read);
    },
    write: (file: string, value: Value): Promise<void> => atomicWriteJson(file, { version: 1, ...value }),
  };
}
