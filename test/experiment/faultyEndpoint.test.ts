import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment, type RunResult } from '../../src/app/runExperiment.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { deterministicResponder, endpointExperimentConfig } from './endpointFixtures.js';

describe('a grid against an endpoint that fails 30% of requests', () => {
  let server: OpenAIServer;
  let result: RunResult;
  let records: RunItemRecord[];

  beforeAll(async () => {
    server = await startOpenAIServer({
      respond: deterministicResponder,
      // The first requests fail outright (so some items surely exhaust their retries), then 30% at random.
      faults: { rate: 0.3, kinds: ['429', '500', 'timeout', 'malformed', 'empty', 'reset'], seed: 11, retryAfterSeconds: 0.05, script: Array(8).fill('500') },
    });
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-faults-'));
    // Few retries, so that some items really fail and must be recorded as failures.
    const file = endpointExperimentConfig(dir, server.url, { retries: 1, retryBaseMs: 5, retryMaxMs: 20, timeoutMs: 1500, apiKeyEnv: 'HISRAG_TEST_KEY' });
    process.env.HISRAG_TEST_KEY = 'sk-test-secret-key-123';
    result = await runExperiment({ config: await loadExperimentConfig(file), configFile: file, runId: 'faults' });
    records = await readRunRecords(result.runDir);
  }, 240_000);

  afterAll(async () => {
    delete process.env.HISRAG_TEST_KEY;
    await server?.close();
  });

  it('records every question × condition exactly once', () => {
    expect(records).toHaveLength(8 * 3);
    expect(new Set(records.map((r) => r.key)).size).toBe(24);
    expect(result.interrupted).toBe(false);
  });

  it('injected faults really happened, and were retried', () => {
    const faults = server.requests.filter((r) => r.fault);
    expect(faults.length).toBeGreaterThan(5);
    expect(new Set(faults.map((r) => r.fault)).size).toBeGreaterThan(3);
  });

  it('scores each item or records it as failed with a reason — never a silent 0', () => {
    expect(records.some((r) => r.score.status === 'generation_failed')).toBe(true);
    for (const r of records) {
      if (r.score.status === 'scored') {
        expect(r.score.score).not.toBeNull();
        expect(r.response).not.toBeNull();
      } else {
        expect(r.score.score).toBeNull();
        expect(r.score.error ?? r.error).toBeTruthy();
      }
    }
  });

  it('excludes failures from the means and counts them in the summary', () => {
    const failed = records.filter((r) => r.score.status !== 'scored').length;
    expect(result.summary.totals.scored + result.summary.totals.generationFailed + result.summary.totals.judgeFailed).toBe(24);
    expect(result.summary.totals.generationFailed + result.summary.totals.judgeFailed).toBe(failed);
    for (const cell of result.summary.cells) {
      const scores = records.filter((r) => r.condition === cell.condition && r.score.status === 'scored').map((r) => r.score.score!);
      expect(cell.score.n).toBe(scores.length);
      if (scores.length) expect(cell.score.mean).toBeCloseTo(scores.reduce((a, b) => a + b, 0) / scores.length);
    }
  });

  it('never writes the API key into the run directory', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    // Every file, subfolders (figures/, labels/) included.
    const files = readdirSync(result.runDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      expect(readFileSync(join(file.parentPath, file.name), 'utf8')).not.toContain('sk-test-secret-key-123');
    }
    expect(server.requests.some((r) => String(r.headers.authorization).includes('sk-test-secret-key-123'))).toBe(true);
  });
});

describe('empty completions among 30% injected faults', () => {
  let faulty: RunResult;
  let clean: RunResult;
  let faultyRecords: RunItemRecord[];
  let cleanRecords: RunItemRecord[];
  let faultyServer: OpenAIServer;
  let cleanServer: OpenAIServer;

  beforeAll(async () => {
    faultyServer = await startOpenAIServer({
      respond: deterministicResponder,
      faults: { rate: 0.3, kinds: ['empty', 'empty', '500', 'timeout', 'malformed', 'reset'], seed: 23, retryAfterSeconds: 0.02 },
    });
    cleanServer = await startOpenAIServer({ respond: deterministicResponder });
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-empty-'));
    const generator = { retries: 5, retryBaseMs: 2, retryMaxMs: 10, timeoutMs: 1500 };
    const faultyFile = endpointExperimentConfig(join(dir), faultyServer.url, generator);
    faulty = await runExperiment({ config: await loadExperimentConfig(faultyFile), runId: 'faulty' });
    faultyRecords = await readRunRecords(faulty.runDir);
    const cleanFile = endpointExperimentConfig(join(dir), cleanServer.url, generator);
    clean = await runExperiment({ config: await loadExperimentConfig(cleanFile), runId: 'clean' });
    cleanRecords = await readRunRecords(clean.runDir);
  }, 240_000);

  afterAll(async () => {
    await faultyServer?.close();
    await cleanServer?.close();
  });

  it('injected empty completions really happened', () => {
    expect(faultyServer.chatRequests().filter((r) => r.fault === 'empty').length).toBeGreaterThan(3);
  });

  it('no item is scored 0 because of a transport fault: every score equals the fault-free run\'s', () => {
    const cleanByKey = new Map(cleanRecords.map((r) => [r.key, r]));
    let compared = 0;
    for (const r of faultyRecords) {
      const twin = cleanByKey.get(r.key)!;
      if (r.score.status !== 'scored' || twin.score.status !== 'scored') continue;
      expect(r.response!.text).toBe(twin.response!.text);
      expect(r.score.score).toBe(twin.score.score);
      compared++;
    }
    expect(compared).toBeGreaterThan(20);
  });

  it('counts every empty answer per condition, in summary.json and the table', async () => {
    const { summaryTable } = await import('../../src/report/table.js');
    for (const cell of faulty.summary.cells) {
      const empty = faultyRecords.filter((r) => r.condition === cell.condition && r.score.rule === 'empty-answer').length;
      expect(cell.empty).toBe(empty);
    }
    expect(faulty.summary.totals.empty).toBe(faultyRecords.filter((r) => r.score.rule === 'empty-answer').length);
    expect(summaryTable(faulty.summary).split('\n')[1]).toMatch(/\bempty$/);
  });

  it('gives the same means as the fault-free run on the items both scored', () => {
    for (const cell of faulty.summary.cells) {
      const cleanCell = clean.summary.cells.find((c) => c.condition === cell.condition)!;
      const both = faultyRecords.filter(
        (r) => r.condition === cell.condition && r.score.status === 'scored' && cleanRecords.find((c) => c.key === r.key)?.score.status === 'scored',
      );
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const faultyMean = mean(both.map((r) => r.score.score!));
      const cleanMean = mean(both.map((r) => cleanRecords.find((c) => c.key === r.key)!.score.score!));
      expect(faultyMean).toBeCloseTo(cleanMean, 10);
      if (cell.scored === cleanCell.scored) expect(cell.score.mean).toBeCloseTo(cleanCell.score.mean!, 10);
    }
  });
});
