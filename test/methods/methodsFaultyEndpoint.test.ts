import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment, type RunResult } from '../../src/app/runExperiment.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { ExtractiveGenerator, ExtractiveParamsSchema } from '../../src/generation/extractive.js';
import { summaryTable } from '../../src/report/table.js';
import { startOpenAIServer, type ChatRequestBody, type OpenAIServer } from '../helpers/openaiServer.js';
import { deterministicResponder, endpointExperimentConfig } from '../experiment/endpointFixtures.js';

const standIn = new ExtractiveGenerator(ExtractiveParamsSchema.parse({}));

/** Judge prompts get deterministic verdicts; every other prompt the stand-in's reply — a model that follows each method's steps. */
function methodResponder(request: ChatRequestBody): string {
  const prompt = request.messages.map((m) => m.content).join('\n');
  if (/^(?:加分项|减分项)_\d+: 0或1$/m.test(prompt)) return deterministicResponder(request);
  return standIn.answer(request.messages.map((m) => ({ role: m.role as 'user', content: m.content ?? '' })));
}

const METHODS = [
  'closed-book',
  'standard',
  { name: 'refine', mode: 'extractive', keep: 6, label: 'refine-x' },
  { name: 'refine', mode: 'abstractive', label: 'refine-a' },
  'adaptive',
  { name: 'iter-retgen', rounds: 2 },
  { name: 'ircot', maxSteps: 3 },
  { name: 'self-ask', maxFollowUps: 2 },
  { name: 'sure', candidates: 2 },
];

describe('every method against an endpoint that fails 30% of requests', () => {
  let faultyServer: OpenAIServer;
  let cleanServer: OpenAIServer;
  let faulty: RunResult;
  let clean: RunResult;
  let faultyRecords: RunItemRecord[];
  let cleanRecords: RunItemRecord[];

  beforeAll(async () => {
    faultyServer = await startOpenAIServer({
      respond: methodResponder,
      faults: { rate: 0.3, kinds: ['429', '500', 'timeout', 'malformed', 'empty', 'reset'], seed: 5, retryAfterSeconds: 0.02 },
    });
    cleanServer = await startOpenAIServer({ respond: methodResponder });
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-method-faults-'));
    const extra = { strategies: METHODS, retrieval: { retriever: { name: 'hnsw', index: join(dir, 'index') }, k: [4] }, benchmark: { name: 'prohist', file: join(process.cwd(), 'experiments/data/demo-prohist.json'), limit: 6 }, execution: { concurrency: 6 } };
    // Two retries: most items survive their faults, some exhaust them and must be counted as failed.
    const generator = { retries: 2, retryBaseMs: 2, retryMaxMs: 10, timeoutMs: 800 };
    const faultyFile = endpointExperimentConfig(dir, faultyServer.url, generator, extra);
    faulty = await runExperiment({ config: await loadExperimentConfig(faultyFile), runId: 'faulty' });
    faultyRecords = await readRunRecords(faulty.runDir);
    const cleanFile = endpointExperimentConfig(dir, cleanServer.url, generator, extra);
    clean = await runExperiment({ config: await loadExperimentConfig(cleanFile), runId: 'clean' });
    cleanRecords = await readRunRecords(clean.runDir);
  }, 300_000);

  afterAll(async () => {
    await faultyServer?.close();
    await cleanServer?.close();
  });

  it('records every question under every method once', () => {
    const conditions = ['closed-book', 'standard@4', 'refine-x@4', 'refine-a@4', 'adaptive@4', 'iter-retgen@4', 'ircot@4', 'self-ask@4', 'sure@4'];
    expect(faulty.summary.conditions).toEqual(conditions);
    expect(faultyRecords).toHaveLength(6 * conditions.length);
    expect(new Set(faultyRecords.map((r) => r.key)).size).toBe(faultyRecords.length);
    expect(cleanRecords.every((r) => r.score.status === 'scored')).toBe(true);
  });

  it('injected faults really happened, and some items failed because of them', () => {
    expect(faultyServer.chatRequests().filter((r) => r.fault).length).toBeGreaterThan(20);
    expect(faultyRecords.some((r) => r.score.status !== 'scored')).toBe(true);
  });

  it('gives exactly the fault-free scores, answers and traces for every item scored in both', () => {
    const cleanByKey = new Map(cleanRecords.map((r) => [r.key, r]));
    let compared = 0;
    for (const r of faultyRecords) {
      const twin = cleanByKey.get(r.key)!;
      if (r.score.status !== 'scored') continue;
      expect(r.response!.text).toBe(twin.response!.text);
      expect(r.score.score).toBe(twin.score.score);
      expect(r.trace.map((s) => s.label)).toEqual(twin.trace.map((s) => s.label));
      expect(r.cost!.promptTokens).toBe(twin.cost!.promptTokens);
      compared++;
    }
    expect(compared).toBeGreaterThan(faultyRecords.length / 3);
  });

  it('counts every item it could not score, naming the failed step, and leaves it out of the means', () => {
    for (const r of faultyRecords.filter((x) => x.score.status === 'generation_failed')) {
      expect(r.score.error ?? r.error).toMatch(/step \d+ \(generate "[^"]+"\) failed|empty answer/);
      expect(r.trace.at(-1)!.error ?? r.score.rule).toBeTruthy();
    }
    for (const cell of faulty.summary.cells) {
      const list = faultyRecords.filter((r) => r.condition === cell.condition);
      const scored = list.filter((r) => r.score.status === 'scored');
      expect(cell.scored).toBe(scored.length);
      expect(cell.failed.generation + cell.failed.judge).toBe(list.length - scored.length);
      if (scored.length) expect(cell.score.mean).toBeCloseTo(scored.reduce((a, r) => a + r.score.score!, 0) / scored.length, 10);
    }
  });

  it('shows several retrieval steps in the traces of the iterative methods', () => {
    const retrievals = (r: RunItemRecord) => r.trace.filter((s) => s.kind === 'retrieve').length;
    expect(cleanRecords.filter((r) => r.condition === 'iter-retgen@4').every((r) => retrievals(r) === 2)).toBe(true);
    // IRCoT stops at once where the model has nothing to reason from; the others take several steps.
    const ircot = cleanRecords.filter((r) => r.condition === 'ircot@4');
    expect(ircot.filter((r) => retrievals(r) >= 3).length).toBeGreaterThan(0);
    for (const r of ircot) expect(retrievals(r)).toBe(r.trace.filter((s) => s.label.startsWith('reason')).length + (r.methodNotes!.reachedMaxSteps ? 1 : 0));
  });

  it('reports cost per answer from the endpoint\'s usage, in summary.json and the table', () => {
    const sure = clean.summary.cells.find((c) => c.condition === 'sure@4')!;
    const standard = clean.summary.cells.find((c) => c.condition === 'standard@4')!;
    expect(standard.cost).toMatchObject({ retrievalCalls: 1, generationCalls: 1, estimatedTokens: false });
    expect(sure.cost!.generationCalls).toBeGreaterThan(standard.cost!.generationCalls);
    expect(sure.cost!.promptTokens).toBeGreaterThan(standard.cost!.promptTokens);
    const header = summaryTable(clean.summary).split('\n')[1]!;
    expect(header).toMatch(/recall\s+retrievals\s+tokens\s+scored/);
    expect(clean.summary.cells.find((c) => c.condition === 'adaptive@4')!.method.retrieved).toMatchObject({ flag: true, n: 6 });
  });
});
