import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunItemRecordSchema } from '../../src/experiment/records.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { runCli, summaryWithoutTiming } from '../helpers/runCli.js';
import { deterministicResponder, endpointExperimentConfig } from './endpointFixtures.js';

const TOTAL = 8 * 3;

function lineCount(file: string): number {
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).length;
}

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
      respond: async (request) => {
        await new Promise((r) => setTimeout(r, 40));
        return deterministicResponder(request);
      },
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
    const items = join(runDir, 'items.jsonl');
    const random = mulberry32(Number(process.env.HISRAG_KILL_SEED ?? 20261130));
    let kills = 0;
    let finished = false;
    for (let attempt = 0; attempt < 8 && !finished; attempt++) {
      const before = lineCount(items);
      // Kill after a random number of further answers (and a random extra delay), while some remain.
      const target = before + 1 + Math.floor(random() * Math.max(1, (TOTAL - before) / 2));
      const extraDelay = Math.floor(random() * 60);
      const args = attempt === 0 ? ['run', config, '--run-id', 'interrupted', '--no-progress'] : ['run', '--resume', runDir, '--no-progress'];
      let killed = false;
      const result = await runCli(args, {
        onSpawn: (child) => {
          const timer = setInterval(() => {
            if (lineCount(items) >= target && attempt < 3) {
              clearInterval(timer);
              setTimeout(() => {
                killed = child.kill('SIGKILL');
              }, extraDelay);
            }
          }, 5);
          child.on('exit', () => clearInterval(timer));
        },
      });
      if (killed && result.signal === 'SIGKILL') kills++;
      else {
        expect(result.stderr).not.toContain('internal error');
        finished = result.code === 0;
      }
    }
    expect(kills).toBeGreaterThanOrEqual(1);
    expect(finished).toBe(true);

    const lines = readFileSync(items, 'utf8').trim().split('\n');
    const keys = lines.map((l) => RunItemRecordSchema.parse(JSON.parse(l)).key);
    expect(keys).toHaveLength(TOTAL);
    expect(new Set(keys).size).toBe(TOTAL);
    expect(summaryWithoutTiming(readFileSync(join(runDir, 'summary.json'), 'utf8'))).toBe(summaryWithoutTiming(readFileSync(join(dir, 'runs', 'uninterrupted', 'summary.json'), 'utf8')));
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
    expect(manifest.complete).toBe(true);
    expect(manifest.sessions.length).toBe(kills + 1);
  }, 400_000);

  it('Ctrl-C stops after the answers in flight, exits 130, and --resume finishes the run', async () => {
    const runDir = join(dir, 'runs', 'ctrl-c');
    const items = join(runDir, 'items.jsonl');
    let interrupted = false;
    const first = await runCli(['run', config, '--run-id', 'ctrl-c', '--no-progress'], {
      onSpawn: (child) => {
        const timer = setInterval(() => {
          if (lineCount(items) >= 3 && !interrupted) {
            interrupted = true;
            clearInterval(timer);
            child.kill('SIGINT');
          }
        }, 5);
        child.on('exit', () => clearInterval(timer));
      },
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

