import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { estimateRun, type RunPlan } from '../../src/estimate/estimateRun.js';
import { RunItemRecordSchema, type RunItemRecord } from '../../src/experiment/records.js';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { runCli, type CliResult } from '../helpers/runCli.js';
import { startOpenAIServer } from '../helpers/openaiServer.js';
import { deterministicResponder, endpointExperimentConfig } from '../experiment/endpointFixtures.js';

const SINGLE_SHOT = ['closed-book', 'standard@5', 'standard@20'];

describe('hisrag run --dry-run experiments/demo-methods.yaml', () => {
  let dir: string;
  let dry: CliResult;
  let plan: RunPlan;
  let records: RunItemRecord[];
  let file: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-dry-run-'));
    file = demoConfigIn(dir, (config) => (config.benchmark.limit = 6), 'demo-methods.yaml', 'demo-methods.yaml');
    dry = await runCli(['run', '--dry-run', file]);
    plan = await estimateRun(await loadExperimentConfig(file));
    const run = await runCli(['run', file, '--run-id', 'real', '--no-progress', '--quiet']);
    expect(run.code).toBe(0);
    records = readFileSync(join(dir, 'runs', 'real', 'items.jsonl'), 'utf8').trim().split('\n').map((l) => RunItemRecordSchema.parse(JSON.parse(l)));
  }, 240_000);

  it('prints calls, tokens and price per condition and in total, calling no model and writing no run', () => {
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('no model was called');
    expect(dry.stdout).toMatch(/^model\s+condition\s+answers\s+model calls\s+prompt tokens\s+completion tokens\s+judge calls\s+cached/m);
    for (const condition of [...SINGLE_SHOT, 'ircot@20', 'sure@5']) expect(dry.stdout).toMatch(new RegExp(`^extractive-baseline\\s+${condition}\\s+6\\s`, 'm'));
    expect(dry.stdout).toMatch(/^total\s+/m);
    // The dry run was before the real run: the only run directory is the real one.
    expect(readdirSync(join(dir, 'runs'))).toEqual(['real']);
  });

  it('for every one-prompt condition, its calls equal and its prompt tokens are within 1% of what the real run records', () => {
    for (const condition of SINGLE_SHOT) {
      const cell = plan.cells.find((c) => c.condition === condition)!;
      const actual = records.filter((r) => r.condition === condition);
      const calls = actual.reduce((n, r) => n + r.cost!.generationCalls, 0);
      const tokens = actual.reduce((n, r) => n + r.cost!.promptTokens, 0);
      expect(cell.basis).toBe('exact');
      expect(cell.generationCalls).toEqual({ min: calls, max: calls });
      expect(Math.abs(cell.promptTokens.min - tokens) / tokens).toBeLessThanOrEqual(0.01);
      expect(cell.promptTokens.max).toBe(cell.promptTokens.min);
    }
  });

  it('bounds the multi-step methods’ calls by their parameters: the real run falls within', () => {
    for (const cell of plan.cells.filter((c) => !SINGLE_SHOT.includes(c.condition))) {
      const calls = records.filter((r) => r.condition === cell.condition).reduce((n, r) => n + r.cost!.generationCalls, 0);
      expect(calls, cell.condition).toBeGreaterThanOrEqual(cell.generationCalls.min);
      expect(calls, cell.condition).toBeLessThanOrEqual(cell.generationCalls.max!);
    }
  });

  it('with --estimate-from an earlier run, multi-step methods take its means', async () => {
    const estimated = await estimateRun(await loadExperimentConfig(file), { estimateFrom: join(dir, 'runs', 'real') });
    const ircot = estimated.cells.find((c) => c.condition === 'ircot@20')!;
    const actual = records.filter((r) => r.condition === 'ircot@20').reduce((n, r) => n + r.cost!.generationCalls, 0);
    expect(ircot.basis).toBe('earlier-run');
    expect(ircot.generationCalls).toEqual({ min: actual, max: actual });
  });

  it('counts the calls the response cache already holds as free', async () => {
    const server = await startOpenAIServer({ respond: deterministicResponder });
    try {
      const where = mkdtempSync(join(tmpdir(), 'hisrag-dry-run-cache-'));
      const config = endpointExperimentConfig(where, server.url, { cache: join(where, 'responses.sqlite'), retries: 1, retryBaseMs: 1 }, { strategies: ['closed-book'] });
      const before = await estimateRun(await loadExperimentConfig(config));
      expect(before.total.cachedCalls).toBe(0);
      expect(server.chatRequests()).toHaveLength(0);
      const run = await runCli(['run', config, '--run-id', 'cached', '--no-progress', '--quiet']);
      expect(run.code).toBe(0);
      const after = await estimateRun(await loadExperimentConfig(config));
      expect(after.cells[0]!.cachedCalls).toBe(after.cells[0]!.answers);
      // The judge is an LLM on rubric questions: one judge call per answer.
      expect(after.cells[0]!.judgeCalls).toBe(after.cells[0]!.answers);
    } finally {
      await server.close();
    }
  });
});
