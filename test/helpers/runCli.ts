import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = fileURLToPath(new URL('../../bin/hisrag.mjs', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `hisrag <args>` as a child process (the real CLI: compiled dist/ when current, else the sources through tsx; exit codes, stdout/stderr). */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; onSpawn?: (child: ChildProcess) => void } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    options.onSpawn?.(child);
  });
}

/**
 * A summary.json's text without the figures of how the answers were obtained rather than what they
 * are: wall time (`cells[].cost.durationMs`) and what the endpoint's rate limit did to the calls
 * (`rateLimited` 429s, `rateLimitWaitMs`). Everything else depends only on the set of records, so an
 * interrupted-and-resumed run must give exactly this of an uninterrupted one; how long answers took
 * and which requests a server refused never repeat exactly.
 */
export function summaryWithoutTiming(text: string): string {
  const summary = JSON.parse(text) as { cells: { cost?: { durationMs?: number; rateLimited?: number; rateLimitWaitMs?: number } | null }[] };
  for (const cell of summary.cells) {
    if (!cell.cost) continue;
    delete cell.cost.durationMs;
    delete cell.cost.rateLimited;
    delete cell.cost.rateLimitWaitMs;
  }
  return JSON.stringify(summary, null, 2);
}
