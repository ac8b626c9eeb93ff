import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunItemRecordSchema } from '../../src/runFiles/itemRecord.js';
import { loadRun } from '../../src/results/loadRun.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { runCli, type CliResult } from '../helpers/runCli.js';
import { deterministicResponder, endpointExperimentConfig } from './endpointFixtures.js';

const TOTAL = 8 * 3;

const lineCount = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).length : 0);

/** Resolves once `check` holds, polling (the CLI writes its files in its own time). */
async function until(check: () => boolean, what: string, child: { exited: boolean }): Promise<void> {
  while (!check()) {
    if (child.exited) throw new Error(`the first writer exited before ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('one writer per run directory', () => {
  let server: OpenAIServer;
  let config: string;
  let dir: string;
  // After `passing` requests the server holds every further one until the gate opens: the first
  // writer is then surely mid-run while the second writers try, however slow the machine is.
  let passing = Infinity;
  let openGate = () => {};
  let gate = Promise.resolve();
  const closeGateAfter = (requests: number) => {
    passing = requests;
    gate = new Promise((resolve) => (openGate = resolve));
  };

  beforeAll(async () => {
    server = await startOpenAIServer({
      respond: async (request) => {
        if (passing-- <= 0) await gate;
        return deterministicResponder(request);
      },
    });
    dir = mkdtempSync(join(tmpdir(), 'hisrag-one-writer-'));
    config = endpointExperimentConfig(dir, server.url, { retries: 2, retryBaseMs: 2 }, { execution: { concurrency: 1 } });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it('refuses a second run, resume and diagnose while a run writes (exit 2, holder named), never blocks a report, and resumes after a kill -9 with every answer once', async () => {
    const runDir = join(dir, 'runs', 'shared');
    const items = join(runDir, 'items.jsonl');
    let writer: ChildProcess | undefined;
    const state = { exited: false };
    closeGateAfter(6);
    const first = runCli(['run', config, '--run-id', 'shared', '--no-progress'], {
      onSpawn: (child) => {
        writer = child;
        child.on('exit', () => (state.exited = true));
      },
    });
    await until(() => lineCount(items) >= 2, 'its second answer', state);
    const pid = writer!.pid!;
    const holder = new RegExp(`run directory .*shared is being written by another process: pid ${pid} on \\S+ since \\S+ \\(.*hisrag\\.mjs run .*--run-id shared`);

    const [resume, sameId, diagnose, report] = await Promise.all([
      runCli(['run', '--resume', runDir, '--no-progress']),
      runCli(['run', config, '--run-id', 'shared', '--no-progress']),
      runCli(['diagnose', runDir, '--no-progress']),
      runCli(['report', runDir, '--quiet']),
    ]);
    for (const refused of [resume, sameId, diagnose] as CliResult[]) {
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(holder);
    }
    // A reader: `hisrag report` and the results API go ahead while the writer holds the lock.
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('report:');
    const loaded = await loadRun(runDir);
    expect(loaded.records.length).toBeGreaterThanOrEqual(2);
    expect(state.exited).toBe(false);

    // kill -9 of the CLI process itself: no exit handler runs, the lock stays behind.
    writer!.kill('SIGKILL');
    const killed = await first;
    expect(killed.signal).toBe('SIGKILL');
    expect(existsSync(join(runDir, 'writer.lock'))).toBe(true);
    const saved = lineCount(items);
    expect(saved).toBeLessThan(TOTAL);

    passing = Infinity;
    openGate();
    const resumed = await runCli(['run', '--resume', runDir, '--no-progress']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`taking over the lock of pid ${pid} .*: no process ${pid} runs`));
    expect(existsSync(join(runDir, 'writer.lock'))).toBe(false);
    const keys = readFileSync(items, 'utf8').trim().split('\n').map((l) => RunItemRecordSchema.parse(JSON.parse(l)).key);
    expect(keys).toHaveLength(TOTAL);
    expect(new Set(keys).size).toBe(TOTAL);
    expect(JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')).complete).toBe(true);
  }, 300_000);

  it('releases the lock when a run is interrupted (exit 130) and when it stops on bad input (exit 2)', async () => {
    const runDir = join(dir, 'runs', 'interrupted');
    closeGateAfter(2);
    const state = { exited: false };
    const interrupted = await runCli(['run', config, '--run-id', 'interrupted', '--no-progress'], {
      onSpawn: (child) => {
        child.on('exit', () => (state.exited = true));
        void until(() => lineCount(join(runDir, 'items.jsonl')) >= 1, 'its first answer', state).then(
          () => {
            child.kill('SIGINT');
            // The answer in flight finishes (a graceful stop), then the run exits.
            passing = Infinity;
            openGate();
          },
          () => {},
        );
      },
    });
    expect(interrupted.code).toBe(130);
    expect(existsSync(join(runDir, 'writer.lock'))).toBe(false);

    // A second `hisrag run` on a finished run id: refused as bad input, and its lock is gone with it.
    const again = await runCli(['run', config, '--run-id', 'interrupted', '--no-progress']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already holds a run; use --resume');
    expect(existsSync(join(runDir, 'writer.lock'))).toBe(false);
  }, 200_000);
});
