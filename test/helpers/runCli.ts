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

/** Runs `hisrag <args>` as a child process (the real CLI: tsx loader, exit codes, stdout/stderr). */
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
 * A summary.json's text without its wall-time figures (`cells[].cost.durationMs`): everything else
 * in a summary depends only on the set of records, so an interrupted-and-resumed run must give
 * exactly this of an uninterrupted one; how long answers took never repeats exactly.
 */
export function summaryWithoutTiming(text: string): string {
  const summary = JSON.parse(text) as { cells: { cost?: { durationMs?: number } | null }[] };
  for (const cell of summary.cells) if (cell.cost) delete cell.cost.durationMs;
  return JSON.stringify(summary, null, 2);
}
