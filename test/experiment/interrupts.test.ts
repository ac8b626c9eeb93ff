import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { runCli, type CliResult, summaryWithoutTiming } from '../helpers/runCli.js';
import { deterministicResponder, endpointExperimentConfig } from './endpointFixtures.js';

const TOTAL = 8 * 3;

function lineCount(file: string): number {
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).length;
}

/** Every file under `dir` whose name marks an unfinished write. */
function tempFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...tempFiles(path));
    else if (/\.tmp$|\.partial$/.test(name)) found.push(path);
  }
  return found;
}

/** Runs the CLI and sends SIGINT once `when` says so (polled every 5 ms). */
function runAndInterrupt(
  args: string[],
  when: (output: { stdout: string; stderr: string }) => boolean,
): Promise<CliResult & { sent: boolean; delivered: boolean }> {
  let sent = false;
  let delivered = false;
  let stdout = '';
  let stderr = '';
  return runCli(args, {
    onSpawn: (child) => {
      child.stdout!.on('data', (d) => (stdout += d));
      child.stderr!.on('data', (d) => (stderr += d));
      const timer = setInterval(() => {
        if (!sent && when({ stdout, stderr })) {
          sent = true;
          clearInterval(timer);
          // Delivered to a process still running (not one that already finished).
          delivered = child.exitCode === null && child.signalCode === null && child.kill('SIGINT');
        }
      }, 5);
      child.on('exit', () => clearInterval(timer));
    },
  }).then((result) => ({ ...result, sent, delivered }));
}

describe('Ctrl-C at every moment of a run exits 130 and leaves a state that --resume completes', () => {
  let server: OpenAIServer;
  let dir: string;
  let config: string;
  let reference: string;

  beforeAll(async () => {
    server = await startOpenAIServer({
      respond: async (request) => {
        await new Promise((r) => setTimeout(r, 30));
        return deterministicResponder(request);
      },
    });
    dir = mkdtempSync(join(tmpdir(), 'hisrag-interrupts-'));
    config = endpointExperimentConfig(dir, server.url, { retries: 2, retryBaseMs: 2 }, { execution: { concurrency: 2 } });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  const summaryOf = (runId: string) => summaryWithoutTiming(readFileSync(join(dir, 'runs', runId, 'summary.json'), 'utf8'));

  it('during prepare (the corpus and index builds)', async () => {
    // The artefacts do not exist yet: the first run builds them, and is interrupted while it does.
    const first = await runAndInterrupt(['run', config, '--run-id', 'at-prepare', '--no-progress'], ({ stdout }) => /building (corpus|hnsw index)/.test(stdout));
    expect(first.sent).toBe(true);
    expect(first.code).toBe(130);
    expect(first.stderr).toMatch(/interrupted/);
    expect(first.stderr).not.toContain('internal error');
    expect(tempFiles(dir)).toEqual([]);
    const resumed = await runCli(['run', '--resume', join(dir, 'runs', 'at-prepare'), '--no-progress']);
    expect(resumed.stderr).not.toContain('internal error');
    expect(resumed.code).toBe(0);
    expect(lineCount(join(dir, 'runs', 'at-prepare', 'items.jsonl'))).toBe(TOTAL);

    const full = await runCli(['run', config, '--run-id', 'uninterrupted', '--no-progress']);
    expect(full.code).toBe(0);
    // One abort listener per request on the run's signal, removed afterwards: no leak warning.
    expect(full.stderr).not.toContain('MaxListenersExceededWarning');
    reference = summaryOf('uninterrupted');
    expect(summaryOf('at-prepare')).toBe(reference);
  }, 300_000);

  it('during start-up, while the sources load', async () => {
    // Node needs some ms before any script runs (before that, no program can catch a signal); loading
    // hisrag's sources through tsx takes many times longer. Interrupt at twice Node's own start-up
    // time on this machine, as loaded as it is now: after the bin's handler, long before the run ends.
    let bootstrap = 0;
    for (let i = 0; i < 3; i++) {
      const t = Date.now();
      spawnSync(process.execPath, ['-e', '0']);
      bootstrap = Math.max(bootstrap, Date.now() - t);
    }
    const started = Date.now();
    const result = await runAndInterrupt(['run', config, '--run-id', 'at-start-up', '--no-progress'], () => Date.now() - started > 2 * bootstrap + 20);
    expect(result.delivered).toBe(true);
    expect(result.code).toBe(130);
    expect(result.signal).toBeNull();
    expect(existsSync(join(dir, 'runs', 'at-start-up', 'items.jsonl'))).toBe(false);
  }, 60_000);

  it('while answering', async () => {
    const items = join(dir, 'runs', 'answering', 'items.jsonl');
    const first = await runAndInterrupt(['run', config, '--run-id', 'answering', '--no-progress'], () => lineCount(items) >= 3);
    expect(first.code).toBe(130);
    expect(lineCount(items)).toBeLessThan(TOTAL);
    expect(tempFiles(join(dir, 'runs'))).toEqual([]);
    const resumed = await runCli(['run', '--resume', join(dir, 'runs', 'answering'), '--no-progress']);
    expect(resumed.code).toBe(0);
    expect(summaryOf('answering')).toBe(reference);
  }, 120_000);

  it('while the summary and report are written', async () => {
    const items = join(dir, 'runs', 'at-summary', 'items.jsonl');
    const first = await runAndInterrupt(['run', config, '--run-id', 'at-summary', '--no-progress'], () => lineCount(items) >= TOTAL);
    expect(first.code).toBe(130);
    expect(tempFiles(join(dir, 'runs'))).toEqual([]);
    const resumed = await runCli(['run', '--resume', join(dir, 'runs', 'at-summary'), '--no-progress']);
    expect(resumed.code).toBe(0);
    expect(summaryOf('at-summary')).toBe(reference);
  }, 120_000);
});
