import { join, resolve } from 'node:path';
import { InputError } from '../errors.js';

/** The environment variable that names the viewer's cache folder (`--cache-dir` wins). */
export const VIEW_CACHE_ENV = 'HISRAG_VIEW_CACHE';
/** Where the answers' indexes are kept without `--cache-dir` or HISRAG_VIEW_CACHE: beside the project's other caches. */
export const DEFAULT_VIEW_CACHE = join('.cache', 'viewer');
/** The environment variable that bounds the cache folder's size (`--cache-limit` wins). */
export const VIEW_CACHE_LIMIT_ENV = 'HISRAG_VIEW_CACHE_LIMIT';
/** The default bound: room for the indexes of several runs of 200,000 answers. */
export const DEFAULT_VIEW_CACHE_LIMIT = '2GB';

/** The viewer's cache folder: the option, else HISRAG_VIEW_CACHE, else `.cache/viewer` under the working directory. */
export function viewCacheDir(option?: string): string {
  return resolve(option ?? (process.env[VIEW_CACHE_ENV] || DEFAULT_VIEW_CACHE));
}

const UNITS: Record<string, number> = { '': 1, B: 1, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, KIB: 1024, MIB: 1024 ** 2, GIB: 1024 ** 3, TIB: 1024 ** 4 };

/** A size such as `500MB`, `2GB`, `1.5GiB` or a number of bytes, in bytes. */
export function parseSize(text: string, what: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = match ? UNITS[match[2]!.toUpperCase()] : undefined;
  if (!match || unit === undefined) throw new InputError(`${what}: expected a size such as 500MB, 2GB or 1.5GiB, got "${text}"`);
  return Math.round(Number(match[1]) * unit);
}

/** The cache folder's bound in bytes: the option, else HISRAG_VIEW_CACHE_LIMIT, else 2 GB. */
export function viewCacheLimit(option?: string): number {
  if (option !== undefined) return parseSize(option, '--cache-limit');
  const fromEnv = process.env[VIEW_CACHE_LIMIT_ENV];
  return fromEnv ? parseSize(fromEnv, VIEW_CACHE_LIMIT_ENV) : parseSize(DEFAULT_VIEW_CACHE_LIMIT, 'default');
}
