import { rmSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';

// Temp files of writes in progress, removed on the way out when the process is interrupted.
const pending = new Set<string>();

/** Removes the temporary files of atomic writes still in progress (an interrupt's exit path). */
export function removePendingTempFiles(): void {
  for (const tmp of pending) rmSync(tmp, { force: true });
  pending.clear();
}

/** The temporary name a write of `path` uses: hidden, beside it, ending in `.tmp`. */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Writes `data` to `path` and fsyncs it (`flag` 'wx': only if the file does not exist). */
export async function writeSynced(path: string, data: string | Uint8Array, flag: 'w' | 'wx' = 'w'): Promise<void> {
  const handle = await open(path, flag);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes `data` to a temporary file beside `path`, fsyncs it and renames it into place. */
export async function atomicWrite(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = tempPathFor(path);
  pending.add(tmp);
  try {
    await writeSynced(tmp, data);
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  } finally {
    pending.delete(tmp);
  }
}

export async function atomicWriteJson(path: string, value: unknown): Promise<void> {
  await atomicWrite(path, JSON.stringify(value, null, 2) + '\n');
}

/**
 * Removes temporary files that an earlier process left in `dir` when it was killed outright
 * (kill -9 runs no exit handler). Only names this module writes are touched.
 */
export async function removeStaleTempFiles(dir: string): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  const names = await readdir(dir).catch(() => [] as string[]);
  const stale = names.filter((name) => {
    const match = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name);
    return match !== null && !processAlive(Number(match[1]));
  });
  for (const name of stale) await rm(join(dir, name), { force: true });
  return stale;
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
