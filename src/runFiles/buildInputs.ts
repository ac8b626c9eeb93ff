import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { z } from 'zod';

/**
 * What a prepared artefact (corpus, index, generated model) was built from: the content hash of
 * each input file and the settings that shaped it. Recorded in the artefact's manifest, and compared
 * with the inputs of now to say whether — and why — it must be rebuilt (as Make or DVC do).
 */
export const FileFingerprintSchema = z.object({
  bytes: z.number().int().nonnegative(),
  /** Modification time: when size and mtime are unchanged the recorded hash is reused (no re-read). */
  mtimeMs: z.number(),
  sha256: z.string(),
});

export const BuildInputsSchema = z.object({
  /** Absolute path → fingerprint. */
  files: z.record(z.string(), FileFingerprintSchema),
  settings: z.record(z.string(), z.unknown()),
});
export type BuildInputs = z.infer<typeof BuildInputsSchema>;

/** `sha256:<hex>` of a file's bytes. */
export async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const block of createReadStream(path)) hash.update(block as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

/** Every file under `path` (itself when a file), in name order; missing paths are left out. */
async function expandFiles(path: string): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return [];
  if (!info.isDirectory()) return [path];
  const out: string[] = [];
  for (const name of (await readdir(path)).sort()) {
    if (name.startsWith('.')) continue;
    out.push(...(await expandFiles(join(path, name))));
  }
  return out;
}

/**
 * Fingerprints files and folders (a folder: every file in it). A file whose size and mtime match
 * `previous` keeps its recorded hash, so an unchanged multi-gigabyte dump costs one `stat`.
 */
export async function fingerprintFiles(paths: string[], previous?: BuildInputs['files']): Promise<BuildInputs['files']> {
  const files: BuildInputs['files'] = {};
  for (const path of paths) {
    for (const file of await expandFiles(path)) {
      const info = await stat(file);
      const before = previous?.[file];
      const sha256 = before && before.bytes === info.size && before.mtimeMs === info.mtimeMs ? before.sha256 : await hashFile(file);
      files[file] = { bytes: info.size, mtimeMs: info.mtimeMs, sha256 };
    }
  }
  return files;
}

/** `{ a: { b: 1 } }` → `{ 'a.b': 1 }` (arrays and scalars are leaves). */
function flatten(value: unknown, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}.${key}` : key, out);
  } else if (value !== undefined) {
    out[prefix] = value;
  }
  return out;
}

const show = (value: unknown) => (value === undefined ? '(unset)' : JSON.stringify(value));

/**
 * Why an artefact built from `recorded` is out of date against `current`, one reason a line
 * ("source file /x/a.jsonl changed", "chunking.maxSize 500 → 256"); empty when it is current.
 * A manifest written before inputs were recorded gives one reason: they are unknown.
 */
export function describeInputChanges(recorded: BuildInputs | undefined, current: BuildInputs, baseDir = process.cwd()): string[] {
  if (!recorded) return ['built before hisrag recorded what an artefact is built from (inputs unknown)'];
  const name = (path: string) => (path.startsWith(baseDir + sep) ? relative(baseDir, path) : path);
  const reasons: string[] = [];
  for (const [path, now] of Object.entries(current.files)) {
    const then = recorded.files[path];
    if (!then) reasons.push(`source file ${name(path)} added`);
    else if (then.sha256 !== now.sha256) reasons.push(`source file ${name(path)} changed`);
  }
  for (const path of Object.keys(recorded.files)) if (!(path in current.files)) reasons.push(`source file ${name(path)} removed`);
  const before = flatten(recorded.settings);
  const after = flatten(current.settings);
  for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) reasons.push(`${key} ${show(before[key])} → ${show(after[key])}`);
  }
  return reasons;
}
