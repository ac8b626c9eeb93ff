import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { acquireLockFile, LockHeldError, processStartTicks, type LockHolder } from '../../src/runFiles/lockFile.js';

const freshDir = () => mkdtempSync(join(tmpdir(), 'hisrag-lock-'));

/** The pid of a process that has exited (a child run to completion). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

function writeLock(path: string, holder: Partial<LockHolder>): void {
  const full: LockHolder = {
    pid: process.pid,
    hostname: hostname(),
    processStartedAt: '2026-01-01T00:00:00.000Z',
    since: '2026-01-01T00:00:01.000Z',
    command: 'bin/hisrag.mjs run --resume x',
    token: 'someone-else',
    ...holder,
  };
  writeFileSync(path, JSON.stringify(full));
}

describe('lock files: one writer at a time', () => {
  it('writes the holder (pid, host, process start, command) and removes it on release', async () => {
    const path = join(freshDir(), 'writer.lock');
    const lock = await acquireLockFile(path, { what: 'test folder' });
    const stored = JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
    expect(stored).toMatchObject({ pid: process.pid, hostname: hostname(), token: lock.holder.token });
    expect(Date.parse(stored.processStartedAt)).toBeLessThanOrEqual(Date.parse(stored.since));
    if (existsSync('/proc/self/stat')) expect(stored.processStartTicks).toBe(processStartTicks(process.pid));
    await lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it('refuses a second writer while the holder lives, naming it', async () => {
    const path = join(freshDir(), 'writer.lock');
    const lock = await acquireLockFile(path, { what: 'test folder' });
    const second = acquireLockFile(path, { what: 'test folder' });
    await expect(second).rejects.toBeInstanceOf(LockHeldError);
    await expect(acquireLockFile(path, { what: 'test folder' })).rejects.toThrow(new RegExp(`test folder is being written by this process already: pid ${process.pid} on ${hostname()} since ${lock.holder.since}`));
    expect((JSON.parse(readFileSync(path, 'utf8')) as LockHolder).token).toBe(lock.holder.token);
    await lock.release();
  });

  it('takes over a lock whose process has exited, and says so', async () => {
    const path = join(freshDir(), 'writer.lock');
    const pid = deadPid();
    writeLock(path, { pid });
    const lines: string[] = [];
    const lock = await acquireLockFile(path, { what: 'test folder', log: (line) => lines.push(line) });
    expect(lines.join('\n')).toMatch(new RegExp(`taking over the lock of pid ${pid} .*: no process ${pid} runs`));
    expect((JSON.parse(readFileSync(path, 'utf8')) as LockHolder).pid).toBe(process.pid);
    await lock.release();
  });

  it.skipIf(!existsSync('/proc/self/stat'))('takes over a lock whose pid now belongs to a process that started later', async () => {
    const path = join(freshDir(), 'writer.lock');
    writeLock(path, { pid: process.pid, processStartTicks: String(Number(processStartTicks(process.pid)) - 1) });
    const lines: string[] = [];
    const lock = await acquireLockFile(path, { what: 'test folder', log: (line) => lines.push(line) });
    expect(lines.join('\n')).toContain(`pid ${process.pid} is now another process`);
    await lock.release();
  });

  it.skipIf(!existsSync('/proc/sys/kernel/random/boot_id'))('takes over a lock from before the machine restarted', async () => {
    const path = join(freshDir(), 'writer.lock');
    writeLock(path, { pid: process.pid, bootId: 'an-earlier-boot' });
    const lines: string[] = [];
    const lock = await acquireLockFile(path, { what: 'test folder', log: (line) => lines.push(line) });
    expect(lines.join('\n')).toContain('the machine has restarted since');
    await lock.release();
  });

  it("keeps another machine's lock, since its process cannot be seen from here", async () => {
    const path = join(freshDir(), 'writer.lock');
    writeLock(path, { pid: deadPid(), hostname: 'another-machine' });
    await expect(acquireLockFile(path, { what: 'test folder' })).rejects.toThrow(/on another-machine .*if that machine's process is gone, remove .*writer\.lock/);
  });

  it('names a lock file it did not write instead of overwriting it', async () => {
    const path = join(freshDir(), 'writer.lock');
    writeFileSync(path, 'locked by hand');
    const attempt = acquireLockFile(path, { what: 'test folder' });
    await expect(attempt).rejects.toBeInstanceOf(InputError);
    await expect(acquireLockFile(path, { what: 'test folder' })).rejects.toThrow(/writer\.lock: not a lock file hisrag wrote/);
    expect(readFileSync(path, 'utf8')).toBe('locked by hand');
  });

  it('a release leaves a lock that is no longer its own', async () => {
    const path = join(freshDir(), 'writer.lock');
    const lock = await acquireLockFile(path, { what: 'test folder' });
    writeLock(path, { token: 'the-next-holder' });
    await lock.release();
    expect((JSON.parse(readFileSync(path, 'utf8')) as LockHolder).token).toBe('the-next-holder');
  });

  it('two processes racing for a stale lock: exactly one holds it', async () => {
    const path = join(freshDir(), 'writer.lock');
    writeLock(path, { pid: deadPid() });
    const results = await Promise.allSettled([acquireLockFile(path, { what: 'test folder' }), acquireLockFile(path, { what: 'test folder' })]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason)[0]).toBeInstanceOf(LockHeldError);
    for (const r of results) if (r.status === 'fulfilled') await r.value.release();
  });
});
