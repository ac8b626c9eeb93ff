import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { link, readFile, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { z } from 'zod';
import { InputError } from '../errors.js';
import { tempPathFor, writeSynced } from '../io/atomicWrite.js';

/** Who holds a lock file: enough to tell whether that process still runs, and to name it to a person. */
export const LockHolderSchema = z.object({
  pid: z.number().int().positive(),
  hostname: z.string(),
  /** Linux: the kernel's boot id; a holder from an earlier boot (a crashed machine) is gone. */
  bootId: z.string().optional(),
  /** Linux: the process's start time in clock ticks since boot (/proc/<pid>/stat field 22); tells a reused pid apart. */
  processStartTicks: z.string().optional(),
  /** When the holding process started, and when it took the lock. */
  processStartedAt: z.string(),
  since: z.string(),
  command: z.string(),
  /** Random per acquisition: a release removes only its own lock. */
  token: z.string(),
});
export type LockHolder = z.infer<typeof LockHolderSchema>;

/** A lock someone else holds: the CLI exits 2 and the message names the holder. */
export class LockHeldError extends InputError {
  override name = 'LockHeldError';
  constructor(
    message: string,
    readonly holder: LockHolder,
  ) {
    super(message);
  }
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/<pid>/stat; the command name (field 2) may hold spaces and parentheses, so count after the last ')'. */
export function processStartTicks(pid: number): string | undefined {
  const stat = readOrUndefined(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

const bootId = () => readOrUndefined('/proc/sys/kernel/random/boot_id');

function ownHolder(): LockHolder {
  const ticks = processStartTicks(process.pid);
  const boot = bootId();
  return {
    pid: process.pid,
    hostname: hostname(),
    ...(boot ? { bootId: boot } : {}),
    ...(ticks ? { processStartTicks: ticks } : {}),
    processStartedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    since: new Date().toISOString(),
    command: process.argv.slice(1).join(' '),
    token: randomBytes(8).toString('hex'),
  };
}

/**
 * Whether the holder's process is gone, and why: checked only on this host (another machine's
 * processes cannot be seen, so its lock is taken as held).
 */
export function holderGone(holder: LockHolder): string | undefined {
  if (holder.hostname !== hostname()) return undefined;
  const boot = bootId();
  if (holder.bootId && boot && holder.bootId !== boot) return 'the machine has restarted since';
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return `no process ${holder.pid} runs`;
  }
  const ticks = processStartTicks(holder.pid);
  if (holder.processStartTicks && ticks && ticks !== holder.processStartTicks) return `pid ${holder.pid} is now another process (it started later)`;
  return undefined;
}

export const describeHolder = (h: LockHolder) => `pid ${h.pid} on ${h.hostname} since ${h.since} (${h.command})`;

/** A lock this process holds. */
export interface HeldLock {
  readonly path: string;
  readonly holder: LockHolder;
  /** Removes the lock if it is still this acquisition's; idempotent. */
  release(): Promise<void>;
}

export interface AcquireOptions {
  /** What is locked, for messages (`run directory /x`). */
  what: string;
  log?: (line: string) => void;
}

function parseHolder(text: string, path: string): LockHolder {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InputError(`${path}: not a lock file hisrag wrote (not JSON); remove it if no hisrag process is using this folder`);
  }
  const parsed = LockHolderSchema.safeParse(value);
  if (!parsed.success) throw new InputError(`${path}: not a lock file hisrag wrote (${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}); remove it if no hisrag process is using this folder`);
  return parsed.data;
}

/**
 * Takes a lock file for one writer at a time. The holder's record is written to a temporary file
 * and hard-linked into place: link(2) fails when the name exists (O_EXCL's guarantee) and the lock
 * appears whole, so a reader never sees a half-written one. A lock whose process is gone (killed,
 * crashed, machine restarted) is taken over, and said so; a live holder is refused with its name.
 * The lock is also removed when the process exits through process.exit (a second Ctrl-C).
 */
export async function acquireLockFile(path: string, options: AcquireOptions): Promise<HeldLock> {
  const holder = ownHolder();
  const text = JSON.stringify(holder, null, 2) + '\n';
  for (let attempt = 0; attempt < 5; attempt++) {
    const tmp = tempPathFor(path);
    // Synced before it gets its name: after a crash the lock is whole, so the next writer can read and take it over.
    await writeSynced(tmp, text, 'wx');
    let created = false;
    try {
      await link(tmp, path);
      created = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await rm(tmp, { force: true });
    }
    if (created) return held(path, holder);

    const existing = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined; // released meanwhile: try again
      throw error;
    });
    if (existing === undefined) continue;
    const other = parseHolder(existing, path);
    const gone = holderGone(other);
    if (!gone) {
      throw new LockHeldError(
        `${options.what} is being written by ${other.pid === process.pid && other.hostname === hostname() ? 'this process already' : 'another process'}: ${describeHolder(other)}. One writer at a time: wait for it to finish or stop it` +
          (other.hostname !== hostname() ? `; if that machine's process is gone, remove ${path}` : '') +
          ' (readers — hisrag view, hisrag report, the results API — need no lock)',
        other,
      );
    }
    // Moved aside first, so two processes that both found it stale cannot both take it over.
    const aside = `${tempPathFor(path)}.stale`;
    try {
      await rename(path, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const moved = await readFile(aside, 'utf8');
    if (moved !== existing) {
      // Another process took it over between our read and the rename: put its lock back.
      await link(aside, path).catch(() => {});
      await rm(aside, { force: true });
      continue;
    }
    await rm(aside, { force: true });
    options.log?.(`${options.what}: taking over the lock of ${describeHolder(other)}: ${gone}`);
  }
  throw new InputError(`${path}: could not take the lock after 5 attempts (other processes keep taking it)`);
}

function held(path: string, holder: LockHolder): HeldLock {
  let released = false;
  const ours = () => {
    try {
      return parseHolder(readFileSync(path, 'utf8'), path).token === holder.token;
    } catch {
      return false;
    }
  };
  const releaseSync = () => {
    if (released) return;
    released = true;
    process.off('exit', releaseSync);
    if (ours()) rmSync(path, { force: true });
  };
  process.on('exit', releaseSync);
  return { path, holder, release: async () => releaseSync() };
}
