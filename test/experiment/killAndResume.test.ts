import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delayed, expectSameAsUninterrupted, killUntilFinished, lineCount, onceLines } from '../helpers/killRun.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { runCli } from '../helpers/runCli.js';
import { deterministicResponder, endpointExperimentConfig } from './endpointFixtures.js';

const TOTAL = 8 * 3;

/** Seeded so a failure is reproducible; the points at which the run is killed vary with it. */
function mulberry32(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('kill -9 at random moments, then --resume', () => {
  let server: OpenAIServer;
  let config: string;
  let dir: string;

  beforeAll(async () => {
    server = await startOpenAIServer({
      // Slow enough that kills land mid-run, with 30% transient faults that retries absorb.
      respond: delayed(40, deterministicResponder),
      faults: { rate: 0.3, kinds: ['429', '500', 'reset', 'malformed'], seed: 5, retryAfterSeconds: 0.02 },
    });
    dir = mkdtempSync(join(tmpdir(), 'hisrag-kill-'));
    config = endpointExperimentConfig(dir, server.url, { retries: 12, retryBaseMs: 2, retryMaxMs: 10 }, { execution: { concurrency: 2 } });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it('gives the same summary.json as an uninterrupted run, with no answer lost or repeated', async () => {
    const full = await runCli(['run', config, '--run-id', 'uninterrupted', '--no-progress']);
    expect(full.stderr).not.toContain('internal error');
    expect(full.code).toBe(0);

    const runDir = join(dir, 'runs', 'interrupted');
    const random = mulberry32(Number(process.env.HISRAG_KILL_SEED ?? 20261130));
    const { kills, finished } = await killUntilFinished({
      first: ['run', config, '--run-id', 'interrupted', '--no-progress'],
      runDir,
      attempts: 8,
      plan: (attempt, saved) => {
        // Kill the first three sessions after a random number of further answers (and a random extra delay), while some remain.
        const at = saved + 1 + Math.floor(random() * Math.max(1, (TOTAL - saved) / 2));
        const delayMs = Math.floor(random() * 60);
        return attempt < 3 ? { at, delayMs } : undefined;
      },
    });
    expect(kills).toBeGreaterThanOrEqual(1);
    expect(finished).toBe(true);

    expectSameAsUninterrupted(runDir, join(dir, 'runs', 'uninterrupted'), TOTAL);
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
    expect(manifest.complete).toBe(true);
    expect(manifest.sessions.length).toBe(kills + 1);
  }, 400_000);

  it('Ctrl-C stops after the answers in flight, exits 130, and --resume finishes the run', async () => {
    const runDir = join(dir, 'runs', 'ctrl-c');
    const items = join(runDir, 'items.jsonl');
    let interrupted = false;
    const first = await runCli(['run', config, '--run-id', 'ctrl-c', '--no-progress'], {
      onSpawn: (child) =>
        onceLines(child, items, 3, () => {
          interrupted = true;
          child.kill('SIGINT');
        }),
    });
    expect(interrupted).toBe(true);
    expect(first.code).toBe(130);
    expect(first.stderr).toContain('Ctrl-C: stopping at the next safe point');
    expect(first.stdout).toMatch(/run incomplete: \d+\/24 answers are saved in .*; finish with: hisrag run --resume/);
    const saved = lineCount(items);
    expect(saved).toBeGreaterThanOrEqual(3);
    expect(saved).toBeLessThan(TOTAL);

    const second = await runCli(['run', '--resume', runDir, '--no-progress']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`(${saved} already done, ${TOTAL - saved} to go)`);
    const keys = readFileSync(items, 'utf8').trim().split('\n').map((l) => JSON.parse(l).key);
    expect(new Set(keys).size).toBe(TOTAL);
    expect(keys).toHaveLength(TOTAL);
  }, 200_000);
});

