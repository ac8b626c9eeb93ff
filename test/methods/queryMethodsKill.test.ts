import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunItemRecordSchema } from '../../src/experiment/records.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { runCli, summaryWithoutTiming } from '../helpers/runCli.js';
import { queryMethodResponder, queryMethodsEndpointConfig } from './queryMethodsEndpoint.js';

const TOTAL = 4 * 6;

function lineCount(file: string): number {
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).length;
}

describe('kill -9 of the CLI in the middle of the query-side methods, then --resume', () => {
  let server: OpenAIServer;
  let config: string;
  let dir: string;

  beforeAll(async () => {
    server = await startOpenAIServer({
      // Slow enough that kills land between a method's steps.
      respond: async (request) => {
        await new Promise((r) => setTimeout(r, 30));
        return queryMethodResponder(request);
      },
    });
    dir = mkdtempSync(join(tmpdir(), 'hisrag-query-kill-'));
    config = queryMethodsEndpointConfig(dir, server.url, { retries: 2, retryBaseMs: 2 }, {
      benchmark: { name: 'prohist', file: join(process.cwd(), 'experiments/data/demo-prohist.json'), limit: 4 },
      execution: { concurrency: 2 },
    });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it('loses and repeats no answer, and ends with the uninterrupted run\'s summary', async () => {
    const full = await runCli(['run', config, '--run-id', 'uninterrupted', '--no-progress']);
    expect(full.code, full.stderr).toBe(0);

    const runDir = join(dir, 'runs', 'interrupted');
    const items = join(runDir, 'items.jsonl');
    // Kill after 3, then 9, then 15 answers; the last session finishes.
    const targets = [3, 9, 15];
    let kills = 0;
    let finished = false;
    for (let attempt = 0; attempt < 6 && !finished; attempt++) {
      const target = targets[attempt];
      const args = attempt === 0 ? ['run', config, '--run-id', 'interrupted', '--no-progress'] : ['run', '--resume', runDir, '--no-progress'];
      let killed = false;
      const result = await runCli(args, {
        onSpawn: (child) => {
          if (target === undefined) return;
          const timer = setInterval(() => {
            if (lineCount(items) >= target) {
              clearInterval(timer);
              // A little later: the kill lands while the next answers are half-way through their steps.
              setTimeout(() => (killed = child.kill('SIGKILL')), 45);
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
    expect(kills).toBeGreaterThanOrEqual(2);
    expect(finished).toBe(true);
    const keys = readFileSync(items, 'utf8').trim().split('\n').map((l) => RunItemRecordSchema.parse(JSON.parse(l)).key);
    expect(keys).toHaveLength(TOTAL);
    expect(new Set(keys).size).toBe(TOTAL);
    expect(summaryWithoutTiming(readFileSync(join(runDir, 'summary.json'), 'utf8'))).toBe(summaryWithoutTiming(readFileSync(join(dir, 'runs', 'uninterrupted', 'summary.json'), 'utf8')));
  }, 500_000);
});
