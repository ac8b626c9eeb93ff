import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { RunItemRecordSchema } from '../../src/runFiles/itemRecord.js';
import type { Responder } from './openaiServer.js';
import { runCli, summaryWithoutTiming } from './runCli.js';

/** Non-empty lines a JSONL file holds so far (0 before it exists). */
export function lineCount(file: string): number {
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).length;
}

/** `respond`, each reply `ms` later: a server slow enough that a kill lands while answers are in flight. */
export function delayed(ms: number, respond: Responder): Responder {
  return async (request) => {
    await new Promise((r) => setTimeout(r, ms));
    return respond(request);
  };
}

/** Calls `action` once, as soon as `file` holds `lines` lines, if the child is still running then. */
export function onceLines(child: ChildProcess, file: string, lines: number, action: () => void): void {
  // Polled: the CLI appends records from another process, and 5 ms is finer than an answer takes.
  const timer = setInterval(() => {
    if (lineCount(file) >= lines) {
      clearInterval(timer);
      action();
    }
  }, 5);
  child.on('exit', () => clearInterval(timer));
}

/** When to kill one session: once items.jsonl holds `at` answers, `delayMs` later. */
export interface KillPlan {
  at: number;
  delayMs: number;
}

/**
 * Runs one run in CLI sessions until one finishes: the first session `first`, each later one
 * `run --resume runDir`. A session `plan` gives a kill point to is killed with SIGKILL there —
 * `runCli` spawns node on the CLI itself, so the kill hits the process that writes the run, with
 * no wrapper to survive it. A session that was not killed must not end in an internal error.
 */
export async function killUntilFinished(options: {
  first: string[];
  runDir: string;
  attempts: number;
  /** Called before each session with the answers saved so far; undefined: let the session run. */
  plan(attempt: number, saved: number): KillPlan | undefined;
}): Promise<{ kills: number; finished: boolean }> {
  const items = join(options.runDir, 'items.jsonl');
  let kills = 0;
  let finished = false;
  for (let attempt = 0; attempt < options.attempts && !finished; attempt++) {
    const plan = options.plan(attempt, lineCount(items));
    const args = attempt === 0 ? options.first : ['run', '--resume', options.runDir, '--no-progress'];
    let killed = false;
    const result = await runCli(args, {
      onSpawn: (child) => {
        if (plan) onceLines(child, items, plan.at, () => setTimeout(() => (killed = child.kill('SIGKILL')), plan.delayMs));
      },
    });
    if (killed && result.signal === 'SIGKILL') kills++;
    else {
      expect(result.stderr).not.toContain('internal error');
      finished = result.code === 0;
    }
  }
  return { kills, finished };
}

/** A resumed run holds every answer exactly once and the summary of the same run done in one go. */
export function expectSameAsUninterrupted(runDir: string, uninterruptedDir: string, total: number): void {
  const keys = readFileSync(join(runDir, 'items.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => RunItemRecordSchema.parse(JSON.parse(l)).key);
  expect(keys).toHaveLength(total);
  expect(new Set(keys).size).toBe(total);
  expect(summaryWithoutTiming(readFileSync(join(runDir, 'summary.json'), 'utf8'))).toBe(summaryWithoutTiming(readFileSync(join(uninterruptedDir, 'summary.json'), 'utf8')));
}
