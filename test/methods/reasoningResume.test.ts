import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunItemRecordSchema, type RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { endpointExperimentConfig } from '../experiment/endpointFixtures.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { runCli } from '../helpers/runCli.js';
import { REASONING_METHODS, reasoningCompletion, reasoningResponder } from './reasoningFixtures.js';

const ITEMS = 4;
const TOTAL = ITEMS * REASONING_METHODS.length;

const recordsOf = (file: string): RunItemRecord[] =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => RunItemRecordSchema.parse(JSON.parse(l))) : [];

describe('kill -9 of the CLI in the middle of reasoning-with-search and FLARE answers, then --resume', () => {
  let server: OpenAIServer;
  let dir: string;
  let config: string;
  beforeAll(async () => {
    // Slow enough that the kill lands with answers in flight, mid-method.
    const slow = <T, R>(f: (x: T) => Promise<R>) => async (x: T) => {
      await new Promise((r) => setTimeout(r, 30));
      return f(x);
    };
    server = await startOpenAIServer({ respond: slow(reasoningResponder), complete: slow(reasoningCompletion) });
    dir = mkdtempSync(join(tmpdir(), 'hisrag-reasoning-kill-'));
    config = endpointExperimentConfig(dir, server.url, { retries: 2, retryBaseMs: 2 }, {
      strategies: REASONING_METHODS,
      retrieval: { retriever: { name: 'hnsw', index: join(dir, 'index') }, k: [4] },
      benchmark: { name: 'prohist', file: join(process.cwd(), 'experiments/data/demo-prohist.json'), limit: ITEMS },
      judge: { name: 'lexical' },
      execution: { concurrency: 3 },
    });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it('loses no answer and repeats none: the same records as an uninterrupted run', async () => {
    const full = await runCli(['run', config, '--run-id', 'uninterrupted', '--no-progress']);
    expect(full.code, full.stderr).toBe(0);
    const items = join(dir, 'runs', 'interrupted', 'items.jsonl');
    const first = await runCli(['run', config, '--run-id', 'interrupted', '--no-progress'], {
      onSpawn: (child) => {
        const timer = setInterval(() => {
          const saved = recordsOf(items).length;
          if (saved >= TOTAL / 3) {
            clearInterval(timer);
            // A moment later, with the methods' later steps in flight.
            setTimeout(() => child.kill('SIGKILL'), 15);
          }
        }, 5);
        child.on('exit', () => clearInterval(timer));
      },
    });
    expect(first.signal).toBe('SIGKILL');
    const partial = recordsOf(items);
    expect(partial.length).toBeGreaterThanOrEqual(TOTAL / 3);
    expect(partial.length).toBeLessThan(TOTAL);
    // Only whole answers were written.
    expect(partial.every((r) => r.score.status === 'scored' && r.response !== null)).toBe(true);

    const resumed = await runCli(['run', '--resume', join(dir, 'runs', 'interrupted'), '--no-progress']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const view = (records: RunItemRecord[]) => records.map((r) => [r.key, r.response!.text, r.trace.map((s) => `${s.kind}:${s.label}`).join(' ')]).sort((a, b) => a[0]!.localeCompare(b[0]!));
    const finished = recordsOf(items);
    expect(finished).toHaveLength(TOTAL);
    expect(new Set(finished.map((r) => r.key)).size).toBe(TOTAL);
    expect(view(finished)).toEqual(view(recordsOf(join(dir, 'runs', 'uninterrupted', 'items.jsonl'))));
  }, 240_000);
});
