import { join, resolve } from 'node:path';

/** The environment variable that names the viewer's cache folder (`--cache-dir` wins). */
export const VIEW_CACHE_ENV = 'HISRAG_VIEW_CACHE';
/** Where the answers' indexes are kept without `--cache-dir` or HISRAG_VIEW_CACHE: beside the project's other caches. */
export const DEFAULT_VIEW_CACHE = join('.cache', 'viewer');

/** The viewer's cache folder: the option, else HISRAG_VIEW_CACHE, else `.cache/viewer` under the working directory. */
export function viewCacheDir(option?: string): string {
  return resolve(option ?? (process.env[VIEW_CACHE_ENV] || DEFAULT_VIEW_CACHE));
}
