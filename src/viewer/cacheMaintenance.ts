import { existsSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { RUN_FILES } from '../runFiles/runDir.js';
import { metaValue } from './indexCache.js';

/**
 * The viewer's cache folder holds one SQLite index per run directory (`<name>-<hash>.sqlite`, with
 * its -wal and -shm), named by the run's path; the index records that path in its `meta` table.
 * Nothing else in the folder is touched, so a --cache-dir shared with other files stays safe.
 */
const INDEX_FILE = /^.+-[0-9a-f]{16}\.sqlite$/;
const COMPANIONS = ['', '-wal', '-shm'];

export interface CacheEntry {
  /** The index file (its -wal and -shm go with it). */
  file: string;
  /** The run directory it indexes; null when the file cannot be read (it is rebuilt on use). */
  dir: string | null;
  bytes: number;
  /** Last use: the newest modification time of its files (a viewer opening a run sets it, `markUsed`). */
  usedAt: number;
}

export interface PruneResult {
  /** Indexes of run directories that no longer exist, or that could not be read. */
  orphans: CacheEntry[];
  /** Indexes of existing runs removed, least recently used first, to bring the folder within its limit. */
  evicted: CacheEntry[];
  freedBytes: number;
  /** What the indexes left take. */
  keptBytes: number;
}

/** The run directory an index file belongs to, read from its `meta` table; null when unreadable. */
function indexedDir(file: string): string | null {
  let db: Database.Database | null = null;
  try {
    db = new Database(file, { fileMustExist: true, timeout: 1000 });
    return metaValue(db, 'dir') ?? null;
  } catch {
    return null;
  } finally {
    db?.close();
  }
}

/** The names in a folder, sorted; none when it cannot be listed. */
export function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** The index files in a cache folder with what they index, their size and last use. */
export function cacheEntries(cacheDir: string): CacheEntry[] {
  return namesIn(cacheDir)
    .filter((name) => INDEX_FILE.test(name))
    .map((name) => {
      const file = join(cacheDir, name);
      // Absent -wal and -shm files (closed cleanly) count nothing.
      const stats = COMPANIONS.map((suffix) => statSync(file + suffix, { throwIfNoEntry: false }));
      const bytes = stats.reduce((n, st) => n + (st?.size ?? 0), 0);
      const usedAt = Math.max(0, ...stats.map((st) => st?.mtimeMs ?? 0));
      return { file, dir: indexedDir(file), bytes, usedAt };
    });
}

/** Records that a viewer uses this index now (its modification time), for the least-recently-used bound. */
export function markUsed(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    // not created yet: its creation is its use
  }
}

function remove(entry: CacheEntry): void {
  for (const suffix of COMPANIONS) rmSync(entry.file + suffix, { force: true });
}

/** -wal and -shm files whose index is gone (a crash between removals). */
function removeStrayCompanions(cacheDir: string): void {
  for (const name of readdirSync(cacheDir)) {
    const match = /^(.+-[0-9a-f]{16}\.sqlite)-(wal|shm)$/.exec(name);
    if (match && !existsSync(join(cacheDir, match[1]!))) rmSync(join(cacheDir, name), { force: true });
  }
}

/** Removes the indexes of runs that no longer exist, then the least recently used over `limitBytes`; never those `inUse`. */
export function pruneCache(cacheDir: string, options: { limitBytes: number; inUse: ReadonlySet<string> }): PruneResult {
  const orphaned = (e: CacheEntry) => !options.inUse.has(e.file) && (e.dir === null || !existsSync(join(e.dir, RUN_FILES.config)));
  const entries = cacheEntries(cacheDir);
  const orphans = entries.filter(orphaned);
  const kept = entries.filter((e) => !orphaned(e));
  for (const entry of orphans) remove(entry);
  let keptBytes = kept.reduce((n, e) => n + e.bytes, 0);
  const evicted: CacheEntry[] = [];
  for (const entry of kept.filter((e) => !options.inUse.has(e.file)).sort((a, b) => a.usedAt - b.usedAt)) {
    if (keptBytes <= options.limitBytes) break;
    remove(entry);
    evicted.push(entry);
    keptBytes -= entry.bytes;
  }
  removeStrayCompanions(cacheDir);
  const freedBytes = [...orphans, ...evicted].reduce((n, e) => n + e.bytes, 0);
  return { orphans, evicted, freedBytes, keptBytes };
}

/** Removes every index from the cache folder (`hisrag view --clear-cache`); the runs are indexed again on their next view. */
export function clearCache(cacheDir: string): { removed: number; freedBytes: number } {
  const entries = cacheEntries(cacheDir);
  for (const entry of entries) remove(entry);
  if (existsSync(cacheDir)) removeStrayCompanions(cacheDir);
  return { removed: entries.length, freedBytes: entries.reduce((n, e) => n + e.bytes, 0) };
}
