import type { z } from 'zod';

/** `retrieval.k[2]` style path for a zod issue path, prefixed with where the object sits. */
export function formatPath(path: ReadonlyArray<PropertyKey>, prefix = ''): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || '(root)';
}

/** One line per problem: `path: message`. */
export function formatZodIssues(error: z.ZodError, prefix = ''): string {
  return error.issues
    .flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => `${formatPath([...issue.path, key], prefix)}: unknown key`)
        : [`${formatPath(issue.path, prefix)}: ${issue.message}`],
    )
    .join('\n');
}
