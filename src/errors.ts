import type { z } from 'zod';

/**
 * Bad input from the user — arguments, config files, data files, model outputs that cannot
 * be used. The CLI prints the message (which names the file, line or field) and exits 2.
 */
export class InputError extends Error {
  override name = 'InputError';
}

/** A config file or a component spec in it is invalid. */
export class ConfigError extends InputError {
  override name = 'ConfigError';
}

/** A data file (dataset, corpus, OCR JSON, JSONL) is malformed. */
export class DataFileError extends InputError {
  override name = 'DataFileError';
}

/**
 * The user interrupted (Ctrl-C, SIGTERM). Work done so far is on disk; the CLI exits 130, the
 * shell's code for a SIGINT, whichever command was running.
 */
export class InterruptedError extends Error {
  constructor(message = 'interrupted') {
    super(message);
    this.name = 'InterruptedError';
  }
}

/**
 * An external service (an LLM or embedding endpoint) failed every request for a while, or a
 * run stopped at its failure limit: nothing is wrong with the input, and the work can be
 * resumed once the service is back. The CLI exits 3.
 */
export class ServiceUnavailableError extends Error {
  override name = 'ServiceUnavailableError';
}

/** Process exit codes, the same for every command (README: "Exit codes"). */
export const EXIT_CODES = { ok: 0, internal: 1, input: 2, service: 3, interrupted: 130 } as const;

/** `retrieval.k[2]` style path for a zod issue path, prefixed with where the object sits. */
export function formatPath(path: ReadonlyArray<PropertyKey>, prefix = ''): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || '(root)';
}

/**
 * A union's failure, replaced by the issues of its one plausible branch (the only one whose input
 * had the right type: `strategies[2]` is a name or a `{ name, … }` spec; of several, the only one that
 * got inside the value: a sweep's `[…]` rather than one enum value), so the path goes on down to the
 * field at fault; otherwise the union's own issue.
 */
function unwrapUnions(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue];
  let plausible = issue.errors.filter((branch) => !branch.every((i) => i.code === 'invalid_type' && i.path.length === 0));
  if (plausible.length > 1) plausible = plausible.filter((branch) => branch.some((i) => i.path.length > 0));
  if (plausible.length !== 1) return [issue];
  return plausible[0]!.flatMap((inner) => unwrapUnions({ ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue));
}

/** A refused key's line of the message (one line per key: a "did you mean" given at parse time), else `unknown key`. */
function keyMessage(message: string, keys: number, i: number): string {
  const lines = message.split('\n');
  return lines.length === keys && lines[i]!.startsWith('unknown key') ? lines[i]! : 'unknown key';
}

/** One line per problem: `path: message`. */
export function formatZodIssues(error: z.ZodError, prefix = ''): string {
  return error.issues
    .flatMap(unwrapUnions)
    .flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key, i) => `${formatPath([...issue.path, key], prefix)}: ${keyMessage(issue.message, issue.keys.length, i)}`)
        : [`${formatPath(issue.path, prefix)}: ${issue.message}`],
    )
    .join('\n');
}

/** `value` checked against `schema`, or the error `fail` makes of its problems (`formatZodIssues`, paths after `prefix`). */
export function parseWith<T>(schema: z.ZodType<T>, value: unknown, fail: (problems: string) => Error, prefix = ''): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw fail(formatZodIssues(parsed.error, prefix));
  return parsed.data;
}
