import { acquireLockFile, type HeldLock } from '../runFiles/lockFile.js';
import { runFile } from '../runFiles/runDir.js';

/**
 * One writer per run directory: `hisrag run` (also `--resume`, with its batches) and `hisrag
 * diagnose` hold `writer.lock` while they write; a second writer is refused (exit 2) with the
 * holder named, a lock left by a dead process is taken over. Readers — the viewer, `hisrag
 * report`, the results API — never take it.
 */
export function acquireRunLock(runDir: string, log?: (line: string) => void): Promise<HeldLock> {
  return acquireLockFile(runFile(runDir, 'lock'), { what: `run directory ${runDir}`, ...(log ? { log } : {}) });
}

/** Runs `work` holding the run directory's lock, released however it ends. */
export async function withRunLock<T>(runDir: string, log: ((line: string) => void) | undefined, work: () => Promise<T>): Promise<T> {
  const lock = await acquireRunLock(runDir, log);
  try {
    return await work();
  } finally {
    await lock.release();
  }
}
