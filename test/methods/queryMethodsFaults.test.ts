import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment, type RunResult } from '../../src/app/runExperiment.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { queryMethodResponder, queryMethodsEndpointConfig } from './queryMethodsEndpoint.js';

const CONDITIONS = ['standard@4', 'hyde@4', 'query-rewrite@4', 'rag-fusion@4', 'crag@4', 'compress@4'];

describe('HyDE, query rewriting, RAG-Fusion, CRAG and compression against an endpoint that fails 30% of requests', () => {
  let faultyServer: OpenAIServer;
  let cleanServer: OpenAIServer;
  let faulty: RunResult;
  let faultyRecords: RunItemRecord[];
  let cleanRecords: RunItemRecord[];

  beforeAll(async () => {
    faultyServer = await startOpenAIServer({
      respond: queryMethodResponder,
      faults: { rate: 0.3, kinds: ['429', '500', 'timeout', 'malformed', 'empty', 'reset'], seed: 11, retryAfterSeconds: 0.02 },
    });
    cleanServer = await startOpenAIServer({ respond: queryMethodResponder });
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-query-method-faults-'));
    const extra = { benchmark: { name: 'prohist', file: join(process.cwd(), 'experiments/data/demo-prohist.json'), limit: 6 }, execution: { concurrency: 6 } };
    // Enough retries that every fault is absorbed: the faulty run must give the fault-free answers.
    const generator = { retries: 8, retryBaseMs: 2, retryMaxMs: 10, timeoutMs: 800 };
    faulty = await runExperiment({ config: await loadExperimentConfig(queryMethodsEndpointConfig(dir, faultyServer.url, generator, extra)), runId: 'faulty' });
    faultyRecords = await readRunRecords(faulty.runDir);
    const clean = await runExperiment({ config: await loadExperimentConfig(queryMethodsEndpointConfig(dir, cleanServer.url, generator, extra)), runId: 'clean' });
    cleanRecords = await readRunRecords(clean.runDir);
  }, 400_000);

  afterAll(async () => {
    await faultyServer?.close();
    await cleanServer?.close();
  });

  it('faults really happened, and every answer was still scored once', () => {
    expect(faulty.summary.conditions).toEqual(CONDITIONS);
    expect(faultyServer.chatRequests().filter((r) => r.fault).length).toBeGreaterThan(20);
    expect(faultyRecords).toHaveLength(6 * CONDITIONS.length);
    expect(new Set(faultyRecords.map((r) => r.key)).size).toBe(faultyRecords.length);
    expect(faultyRecords.filter((r) => r.score.status !== 'scored').map((r) => r.key)).toEqual([]);
    expect(cleanRecords.every((r) => r.score.status === 'scored')).toBe(true);
  });

  it('gives exactly the fault-free answers, scores, traces and token counts', () => {
    const cleanByKey = new Map(cleanRecords.map((r) => [r.key, r]));
    for (const r of faultyRecords) {
      const twin = cleanByKey.get(r.key)!;
      expect(r.response!.text, r.key).toBe(twin.response!.text);
      expect(r.score.score, r.key).toBe(twin.score.score);
      expect(r.trace.map((s) => [s.kind, s.label, s.query ?? '', s.response ?? '', JSON.stringify(s.detail ?? {}).replace(/"ms":\d+/, '')]), r.key).toEqual(
        twin.trace.map((s) => [s.kind, s.label, s.query ?? '', s.response ?? '', JSON.stringify(s.detail ?? {}).replace(/"ms":\d+/, '')]),
      );
      expect(r.cost!.promptTokens, r.key).toBe(twin.cost!.promptTokens);
      expect(r.cost!.generationCalls, r.key).toBe(twin.cost!.generationCalls);
    }
  });

  it('counts each method\'s calls and the endpoint\'s tokens', () => {
    const cost = (condition: string) => faulty.summary.cells.find((c) => c.condition === condition)!.cost!;
    expect(cost('standard@4')).toMatchObject({ retrievalCalls: 1, generationCalls: 1, estimatedTokens: false });
    expect(cost('hyde@4')).toMatchObject({ retrievalCalls: 1, generationCalls: 3 });
    expect(cost('query-rewrite@4')).toMatchObject({ retrievalCalls: 1, generationCalls: 2 });
    expect(cost('rag-fusion@4').retrievalCalls).toBeGreaterThan(1);
    expect(cost('crag@4')).toMatchObject({ retrievalCalls: 1, generationCalls: 5 });
    expect(cost('compress@4').promptTokens).toBeLessThan(cost('standard@4').promptTokens);
    const labels = new Set(faultyRecords.filter((r) => r.condition === 'crag@4').map((r) => r.trace.find((s) => s.kind === 'evaluate')!.detail!.label));
    expect(labels.size).toBeGreaterThan(1);
  });
});
