import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { InputError } from '../errors.js';

/**
 * Expands a builder's `input` (a file, or a directory whose files matching `pattern` are taken in
 * name order) into absolute paths with sizes; the order is fixed so that resume can count items.
 */
export async function listInputFiles(baseDir: string, input: string | string[], pattern: RegExp): Promise<{ path: string; bytes: number }[]> {
  const out: { path: string; bytes: number }[] = [];
  for (const entry of Array.isArray(input) ? input : [input]) {
    const path = resolve(baseDir, entry);
    let info;
    try {
      info = await stat(path);
    } catch {
      throw new InputError(`${path}: no such file or directory`);
    }
    if (info.isDirectory()) {
      const names = (await readdir(path)).filter((name) => pattern.test(name)).sort();
      if (names.length === 0) throw new InputError(`${path}: no files matching ${pattern} in this directory`);
      for (const name of names) out.push({ path: join(path, name), bytes: (await stat(join(path, name))).size });
    } else {
      out.push({ path, bytes: info.size });
    }
  }
  return out;
}
