import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CHUNKLESS_METRICS, CLAIM_METRICS, type RecordDiagnostics } from '../../src/runFiles/diagnosis.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { loadRun } from '../../src/results/loadRun.js';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { startOpenAIServer, type FaultKind, type OpenAIServer } from '../helpers/openaiServer.js';
import { runCli, type CliResult } from '../helpers/runCli.js';
import { claimResponder } from './claimServer.js';

/**
 * Issue 25: "Under a judge endpoint with 30% faults the diagnostics of every answer diagnosed in
 * both runs are identical", the rest counted per metric and completed by a later diagnosis; and an
 * endpoint that is down stops `hisrag diagnose` with exit 3, resumable once it is back.
 */

const FAULT_KINDS: FaultKind[] = ['429', '500', 'timeout', 'malformed', 'empty', 'reset'];
/**
 * The metrics that read each label matrix (RAGChecker's definitions), and what a failed extraction
 * breaks. Stated by matrix, the inverse of the source's table by metric, so that the two are written
 * independently and must agree.
 */
const READERS: Record<string, string[]> = {
  responseVsGold: ['precision', 'f1', 'noiseSensitivityRelevant', 'noiseSensitivityIrrelevant', 'hallucination', 'selfKnowledge'],
  goldVsResponse: ['recall', 'f1', 'contextUtilization'],
  responseVsChunks: ['noiseSensitivityRelevant', 'noiseSensitivityIrrelevant', 'hallucination', 'selfKnowledge', 'faithfulness'],
  goldVsChunks: ['claimRecall', 'contextPrecision', 'contextUtilization', 'noiseSensitivityRelevant', 'noiseSensitivityIrrelevant'],
};
const BROKEN_BY: Record<string, string[]> = {
  responseClaims: ['responseVsGold', 'responseVsChunks'],
  goldClaims: ['goldVsResponse', 'goldVsChunks'],
};

interface SummaryCell {
  model: string;
  condition: string;
  diagnostics: { decomposition: unknown; claims: Record<string, { mean: number | null; ciLow: number | null; ciHigh: number | null; n: number; failed: number }>; diagnosed: number };
}
const summaryCells = (runDir: string) => (JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as { cells: SummaryCell[] }).cells;
const flow = (value: unknown) => stringify(value, { flow: true }).trim();

/** `--set` arguments pointing extractor and checker at one endpoint. */
function claimSettings(baseURL: string, transport: Record<string, unknown>): string[] {
  const endpoint = { baseURL, concurrency: 8, retryBaseMs: 1, retryMaxMs: 20, ...transport };
  return ['--set', `checker=${flow({ name: 'openai', model: 'checker', ...endpoint })}`, '--set', `extractor=${flow({ name: 'openai', model: 'extractor', ...endpoint })}`, '--set', 'concurrency=4'];
}

/** What must be identical between two diagnoses of one answer (costs and durations are accounts of the invocation). */
const substance = (d: RecordDiagnostics) => ({ responseClaims: d.responseClaims, goldClaims: d.goldClaims, contextIds: d.contextIds, labels: d.labels, metrics: d.metrics, evidence: d.evidence });

async function diagnosesByKey(runDir: string): Promise<Map<string, { record: RunItemRecord; diagnostics: RecordDiagnostics }>> {
  const { records } = await loadRun(runDir);
  return new Map(records.flatMap((record) => (record.diagnostics ? [[record.key, { record, diagnostics: record.diagnostics }] as const] : [])));
}

describe('diagnostics under a faulty judge endpoint', () => {
  let dir: string;
  let runDir: string;
  let toDiagnose = 0;
  const copies = { clean: '', faulty: '', down: '' };
  let faulty: OpenAIServer;
  let clean: OpenAIServer | undefined;
  let faultyRun: CliResult;
  let cleanRun: CliResult;
  let faultySettings: string[];
  let cleanSettings: string[];
  const servers: OpenAIServer[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-diagnose-faults-'));
    const config = demoConfigIn(
      dir,
      (c) => {
        c.benchmark.limit = 8;
        c.retrieval.k = [10, 50];
      },
      'plain.yaml',
    );
    const run = await runCli(['run', config, '--run-id', 'plain', '--no-progress', '--quiet']);
    expect(run.code).toBe(0);
    runDir = join(dir, 'runs', 'plain');
    toDiagnose = readFileSync(join(runDir, 'items.jsonl'), 'utf8').trim().split('\n').length;
    for (const name of Object.keys(copies) as (keyof typeof copies)[]) {
      copies[name] = join(dir, 'runs', name);
      cpSync(runDir, copies[name], { recursive: true });
    }

    // The faulty endpoint first; the clean one then listens on its port, so that both diagnoses
    // (and the one that completes the faulty copy) use the same settings, the same cache keys.
    faulty = await startOpenAIServer({ respond: claimResponder, faults: { rate: 0.3, kinds: FAULT_KINDS, seed: 25, retryAfterSeconds: 0.02 } });
    servers.push(faulty);
    // Few HTTP retries and no retry of unreadable replies, so that some checks really fail.
    faultySettings = claimSettings(faulty.url, { httpRetries: 2, retries: 0, timeoutMs: 500 });
    // The same endpoint and model settings; only a transport setting differs (a longer timeout, so
    // that a loaded machine cannot make a clean request fail), which leaves the cache keys alone.
    cleanSettings = claimSettings(faulty.url, { httpRetries: 2, retries: 0, timeoutMs: 10_000 });
    faultyRun = await runCli(['diagnose', copies.faulty, '--no-progress', ...faultySettings]);
    await faulty.close();
    clean = await startOpenAIServer({ respond: claimResponder, port: Number(new URL(faulty.url).port) });
    servers.push(clean);
    expect(clean.url).toBe(faulty.url);
    cleanRun = await runCli(['diagnose', copies.clean, '--no-progress', ...cleanSettings]);
  }, 150_000);

  afterAll(async () => {
    for (const server of servers) await server.close().catch(() => {});
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('faults really happened, and some checks really failed', async () => {
    expect(cleanRun.stderr).not.toContain('internal error');
    expect(cleanRun.code).toBe(0);
    expect(faultyRun.stderr).not.toContain('internal error');
    expect(faultyRun.code).toBe(0);
    const kinds = new Set(faulty.chatRequests().flatMap((r) => (r.fault ? [r.fault] : [])));
    expect([...kinds].sort()).toEqual([...FAULT_KINDS].sort());
    const share = faulty.chatRequests().filter((r) => r.fault).length / faulty.chatRequests().length;
    expect(share).toBeGreaterThan(0.2);
    expect(share).toBeLessThan(0.4);
    expect(faultyRun.stdout).toMatch(/(\d+) answers have failed checks .*run hisrag diagnose .* again to retry them/);
    const withFailures = [...(await diagnosesByKey(copies.faulty)).values()].filter(({ diagnostics }) => diagnostics.failed.length > 0);
    expect(withFailures.length).toBeGreaterThan(0);
    expect(faultyRun.stdout).toContain(`${withFailures.length} answers have failed checks`);
  });

  it('every answer without a failed check in either run has identical claims, labels and metrics', async () => {
    const a = await diagnosesByKey(copies.clean);
    const b = await diagnosesByKey(copies.faulty);
    expect(a.size).toBe(toDiagnose);
    expect(b.size).toBe(toDiagnose);
    expect([...a.values()].every(({ diagnostics }) => diagnostics.failed.length === 0)).toBe(true);
    let both = 0;
    for (const [key, { diagnostics }] of b) {
      if (diagnostics.failed.length > 0) continue;
      both++;
      expect(substance(diagnostics), key).toEqual(substance(a.get(key)!.diagnostics));
    }
    // Enough answers on both sides for the comparison to mean something.
    expect(both).toBeGreaterThan(toDiagnose / 5);
    expect(both).toBeLessThan(toDiagnose);
  });

  it('answers with failed checks name what failed, leave exactly the affected metrics null, and the cells count them', async () => {
    const a = await diagnosesByKey(copies.clean);
    const b = await diagnosesByKey(copies.faulty);
    const nullCount = new Map<string, number>();
    for (const [key, { record, diagnostics: d }] of b) {
      const names: readonly string[] = record.retriever === null ? CHUNKLESS_METRICS : CLAIM_METRICS;
      for (const name of names) if (d.metrics[name as keyof typeof d.metrics] === null) nullCount.set(`${record.condition}|${name}`, (nullCount.get(`${record.condition}|${name}`) ?? 0) + 1);
      if (d.failed.length === 0) continue;
      const broken = new Set<string>();
      for (const failure of d.failed) {
        expect(failure.error, key).toMatch(/\S/);
        expect(failure.what in READERS || failure.what in BROKEN_BY, key).toBe(true);
        for (const m of BROKEN_BY[failure.what] ?? [failure.what]) broken.add(m);
        // The failed check's entry is left null: no guess, above all not "neutral".
        if (failure.claim !== undefined) {
          const matrix = d.labels[failure.what as keyof RecordDiagnostics['labels']];
          const entry = failure.passage !== undefined ? (matrix as (string | null)[][])[failure.claim]![failure.passage] : (matrix as (string | null)[])[failure.claim];
          expect(entry, `${key} ${JSON.stringify(failure)}`).toBeNull();
          expect(failure.what.endsWith('Chunks')).toBe(failure.passage !== undefined);
        }
      }
      for (const name of names) {
        const affected = [...broken].some((m) => READERS[m]!.includes(name));
        const value = d.metrics[name as keyof typeof d.metrics];
        if (affected) expect(value, `${key} ${name}`).toBeNull();
        else expect(value, `${key} ${name}`).toBe(a.get(key)!.diagnostics.metrics[name as keyof typeof d.metrics]);
      }
      // The labels that were obtained are the clean run's labels.
      const cleanLabels = a.get(key)!.diagnostics.labels;
      if (d.responseClaims.length === a.get(key)!.diagnostics.responseClaims.length && d.goldClaims.length === a.get(key)!.diagnostics.goldClaims.length) {
        for (const matrix of Object.keys(d.labels) as (keyof RecordDiagnostics['labels'])[]) {
          const rows = d.labels[matrix] as unknown[];
          const width = Array.isArray(rows[0]) ? (rows[0] as unknown[]).length : 1;
          const got = rows.flat();
          const want = (cleanLabels[matrix] as unknown[]).flat();
          // The prefilter stops at a claim's first entailing passage: where that check failed, it went on
          // to the next candidate, which the clean run never asked about. Only such claims have more labels.
          const failedClaims = new Set(d.failed.filter((f) => f.what === matrix).map((f) => f.claim));
          got.forEach((entry, i) => {
            if (entry === null) return;
            if (want[i] === null) expect(failedClaims.has(Math.floor(i / width)), `${key} ${matrix}[${i}]: checked only here`).toBe(true);
            else expect(entry, `${key} ${matrix}[${i}]`).toBe(want[i]);
          });
        }
      }
    }
    expect([...nullCount.values()].reduce((n, c) => n + c, 0)).toBeGreaterThan(0);
    for (const cell of summaryCells(copies.faulty)) {
      expect(cell.diagnostics.diagnosed).toBe(toDiagnose / 3);
      for (const [name, claim] of Object.entries(cell.diagnostics.claims)) {
        const failed = nullCount.get(`${cell.condition}|${name}`) ?? 0;
        expect(claim.failed, `${cell.condition} ${name}`).toBe(failed);
        expect(claim.n, `${cell.condition} ${name}`).toBe(toDiagnose / 3 - failed);
      }
    }
    for (const cell of summaryCells(copies.clean)) for (const claim of Object.values(cell.diagnostics.claims)) expect(claim.failed).toBe(0);
  });

  it('a second diagnosis of the faulty copy against the clean endpoint redoes the answers with failed checks and gives the clean figures', async () => {
    const before = await diagnosesByKey(copies.faulty);
    const redo = [...before.values()].filter(({ diagnostics }) => diagnostics.failed.length > 0).length;
    const requestsBefore = clean!.chatRequests().length;
    const again = await runCli(['diagnose', copies.faulty, '--no-progress', ...cleanSettings]);
    expect(again.stderr).not.toContain('internal error');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`${toDiagnose} answers, ${toDiagnose - redo} already diagnosed, ${redo} to go`);
    expect(again.stdout).not.toMatch(/answers have failed checks/);
    expect(clean!.chatRequests().length).toBeGreaterThan(requestsBefore);
    const strip = (cells: SummaryCell[]) => cells.map((c) => ({ model: c.model, condition: c.condition, claims: c.diagnostics.claims, decomposition: c.diagnostics.decomposition, diagnosed: c.diagnostics.diagnosed }));
    expect(strip(summaryCells(copies.faulty))).toEqual(strip(summaryCells(copies.clean)));
    const a = await diagnosesByKey(copies.clean);
    const b = await diagnosesByKey(copies.faulty);
    for (const [key, { diagnostics }] of b) {
      expect(diagnostics.failed, key).toEqual([]);
      expect(substance(diagnostics), key).toEqual(substance(a.get(key)!.diagnostics));
    }
  }, 60_000);

  it('an endpoint that is down stops hisrag diagnose with exit 3 and a resume hint; once it is back, hisrag diagnose finishes', async () => {
    // A port that was just listening and is now closed: connection refused.
    const gone = await startOpenAIServer({ respond: claimResponder });
    const port = Number(new URL(gone.url).port);
    await gone.close();
    const settings = claimSettings(gone.url, { httpRetries: 8, retries: 0, retryBaseMs: 10, retryMaxMs: 40, unavailableAfterMs: 150, timeoutMs: 2_000 });
    const down = await runCli(['diagnose', copies.down, '--no-progress', ...settings]);
    expect(down.stderr).not.toContain('internal error');
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/unavailable/);
    expect(down.stderr).toContain(`finish with: hisrag diagnose ${copies.down}`);
    expect(readdirSync(copies.down).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const state = JSON.parse(readFileSync(join(copies.down, 'diagnostics.json'), 'utf8')) as { complete: boolean };
    expect(state.complete).toBe(false);

    const back = await startOpenAIServer({ respond: claimResponder, port });
    servers.push(back);
    const resumed = await runCli(['diagnose', copies.down, '--no-progress', ...settings]);
    expect(resumed.stderr).not.toContain('internal error');
    expect(resumed.code).toBe(0);
    expect(back.chatRequests().length).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(join(copies.down, 'diagnostics.json'), 'utf8')).complete).toBe(true);
    // The labels do not depend on where the endpoint listens: the clean figures.
    const claimsOf = (cells: SummaryCell[]) => cells.map((c) => ({ condition: c.condition, claims: c.diagnostics.claims }));
    expect(claimsOf(summaryCells(copies.down))).toEqual(claimsOf(summaryCells(copies.clean)));
  }, 60_000);
});
