import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { answerMetrics } from '../../src/diagnostics/claimMetrics.js';
import { CHUNKLESS_METRICS, CLAIM_METRICS, type ClaimMetric, type LabelMatrices, type MatrixEntry } from '../../src/runFiles/diagnosis.js';
import { loadRun } from '../../src/results/loadRun.js';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { runCli, summaryWithoutTiming, type CliResult } from '../helpers/runCli.js';
import { answerResponder, delayedClaimResponder } from './claimServer.js';

/**
 * The guarantees of issue 25 that need no faults: `hisrag diagnose` on a plain run never calls the
 * run's model; an interrupted (kill -9) diagnosis resumed ends with the summary of an uninterrupted
 * one; every metric in summary.json can be recomputed from the records' label matrices with
 * RAGChecker's formulas (implemented here independently from the source, from the definitions in
 * DESIGN.md "RAG diagnostics"); the help/hurt contributions add up to the paired Δ.
 */

// ---------------------------------------------------------------------------------------------
// RAGChecker's per-answer metrics, written from the definitions (only entailment counts; null — a
// pair the prefilter did not send — counts as not entailed; empty inputs give 0, not NaN). The
// metric names are the source's list; the formulas are this file's own.

const METRICS = CLAIM_METRICS;
type Metric = ClaimMetric;
const CLOSED_BOOK_METRICS = CHUNKLESS_METRICS;

const yes = (entry: MatrixEntry | undefined) => entry === 'entailment';
/** Share of `n` things for which `pred` holds; 0 when there are none. */
function share(n: number, pred: (i: number) => boolean): number {
  if (n === 0) return 0;
  let hits = 0;
  for (let i = 0; i < n; i++) if (pred(i)) hits++;
  return hits / n;
}

function referenceMetrics(labels: LabelMatrices, k: number): Record<Metric, number> {
  const R = labels.responseVsGold.length;
  const G = labels.goldVsResponse.length;
  const correct = (i: number) => yes(labels.responseVsGold[i]);
  const goldInResponse = (g: number) => yes(labels.goldVsResponse[g]);
  const goldInChunk = (g: number, j: number) => yes(labels.goldVsChunks[g]?.[j]);
  const responseInChunk = (i: number, j: number) => yes(labels.responseVsChunks[i]?.[j]);
  const anyChunk = (pred: (j: number) => boolean) => {
    for (let j = 0; j < k; j++) if (pred(j)) return true;
    return false;
  };
  const recalled = (g: number) => anyChunk((j) => goldInChunk(g, j));
  const relevantChunk = (j: number) => {
    for (let g = 0; g < G; g++) if (goldInChunk(g, j)) return true;
    return false;
  };
  const supported = (i: number) => anyChunk((j) => responseInChunk(i, j));

  let recalledCount = 0;
  let used = 0;
  for (let g = 0; g < G; g++) {
    if (!recalled(g)) continue;
    recalledCount++;
    if (goldInResponse(g)) used++;
  }
  const fromRelevant = (i: number) => anyChunk((j) => relevantChunk(j) && responseInChunk(i, j));
  const fromIrrelevantOnly = (i: number) => !fromRelevant(i) && anyChunk((j) => !relevantChunk(j) && responseInChunk(i, j));
  const precision = share(R, correct);
  const recall = share(G, goldInResponse);
  const withChunks = k > 0 && R > 0;
  const noise = withChunks && G > 0;
  // Each metric's formula where it is named.
  return {
    precision,
    recall,
    f1: precision > 0 && recall > 0 ? (2 * precision * recall) / (precision + recall) : 0,
    claimRecall: k > 0 ? share(G, recalled) : 0,
    contextPrecision: G > 0 ? share(k, relevantChunk) : 0,
    contextUtilization: recalledCount > 0 ? used / recalledCount : 0,
    noiseSensitivityRelevant: noise ? share(R, (i) => fromRelevant(i) && !correct(i)) : 0,
    noiseSensitivityIrrelevant: noise ? share(R, (i) => fromIrrelevantOnly(i) && !correct(i)) : 0,
    hallucination: withChunks ? share(R, (i) => !supported(i) && !correct(i)) : 0,
    selfKnowledge: withChunks ? share(R, (i) => !supported(i) && correct(i)) : 0,
    faithfulness: withChunks ? share(R, supported) : 0,
  };
}

/** Builds a matrices fixture from compact strings: E entailment, N neutral, C contradiction, - null. */
function matrices(spec: { rg: string; gr: string; rc: string[]; gc: string[] }): LabelMatrices {
  const entry = (ch: string): MatrixEntry => ({ E: 'entailment', N: 'neutral', C: 'contradiction', '-': null })[ch] as MatrixEntry;
  const row = (s: string) => [...s].map(entry);
  return { responseVsGold: row(spec.rg), goldVsResponse: row(spec.gr), responseVsChunks: spec.rc.map(row), goldVsChunks: spec.gc.map(row) };
}

function expectMetrics(actual: Partial<Record<Metric, number | null>>, expected: Partial<Record<Metric, number | null>>): void {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const [name, value] of Object.entries(expected)) {
    if (value === null) expect(actual[name as Metric], name).toBeNull();
    else expect(actual[name as Metric], name).toBeCloseTo(value, 12);
  }
}

describe('RAGChecker metrics over fixture matrices', () => {
  const cases: { name: string; m: LabelMatrices; k: number; expected: Record<Metric, number> }[] = [
    {
      // 3 response claims, 2 gold claims, 3 passages. Passage 0 entails gold 0 (relevant), passage 2
      // entails gold 1 (relevant), passage 1 entails none (irrelevant).
      // r0: correct, from relevant p0; r1: wrong, from relevant p2 → noise (relevant);
      // r2: wrong, from irrelevant p1 only → noise (irrelevant).
      name: 'a mixed answer',
      m: matrices({ rg: 'ENC', gr: 'EN', rc: ['EN-', 'NNE', '-EN'], gc: ['ENN', 'NCE'] }),
      k: 3,
      expected: {
        precision: 1 / 3,
        recall: 1 / 2,
        f1: (2 * (1 / 3) * (1 / 2)) / (1 / 3 + 1 / 2),
        claimRecall: 1,
        contextPrecision: 2 / 3,
        contextUtilization: 1 / 2,
        noiseSensitivityRelevant: 1 / 3,
        noiseSensitivityIrrelevant: 1 / 3,
        hallucination: 0,
        selfKnowledge: 0,
        faithfulness: 1,
      },
    },
    {
      name: 'no response claims',
      m: matrices({ rg: '', gr: 'EN', rc: [], gc: ['EN', 'NN'] }),
      k: 2,
      expected: {
        precision: 0,
        recall: 1 / 2,
        f1: 0,
        claimRecall: 1 / 2,
        contextPrecision: 1 / 2,
        contextUtilization: 1,
        noiseSensitivityRelevant: 0,
        noiseSensitivityIrrelevant: 0,
        hallucination: 0,
        selfKnowledge: 0,
        faithfulness: 0,
      },
    },
    {
      // Without gold claims no passage is relevant; noise sensitivity needs gold claims (0).
      name: 'no gold claims',
      m: matrices({ rg: 'EN', gr: '', rc: ['EN', 'NN'], gc: [] }),
      k: 2,
      expected: {
        precision: 1 / 2,
        recall: 0,
        f1: 0,
        claimRecall: 0,
        contextPrecision: 0,
        contextUtilization: 0,
        noiseSensitivityRelevant: 0,
        noiseSensitivityIrrelevant: 0,
        hallucination: 1 / 2,
        selfKnowledge: 0,
        faithfulness: 1 / 2,
      },
    },
    {
      // No passage entails a gold claim: every supported wrong claim is irrelevant noise.
      name: 'no relevant chunk',
      m: matrices({ rg: 'NEN', gr: 'NE', rc: ['EN', 'NN', 'NE'], gc: ['NC', 'NN'] }),
      k: 2,
      expected: {
        precision: 1 / 3,
        recall: 1 / 2,
        f1: (2 * (1 / 3) * (1 / 2)) / (1 / 3 + 1 / 2),
        claimRecall: 0,
        contextPrecision: 0,
        contextUtilization: 0,
        noiseSensitivityRelevant: 0,
        noiseSensitivityIrrelevant: 2 / 3,
        hallucination: 0,
        selfKnowledge: 1 / 3,
        faithfulness: 2 / 3,
      },
    },
    {
      // Every passage entails a gold claim: no irrelevant noise is possible.
      name: 'every chunk relevant',
      m: matrices({ rg: 'ENN', gr: 'EE', rc: ['EN', 'NE', 'NN'], gc: ['EN', 'NE'] }),
      k: 2,
      expected: {
        precision: 1 / 3,
        recall: 1,
        f1: (2 * (1 / 3) * 1) / (1 / 3 + 1),
        claimRecall: 1,
        contextPrecision: 1,
        contextUtilization: 1,
        noiseSensitivityRelevant: 1 / 3,
        noiseSensitivityIrrelevant: 0,
        hallucination: 1 / 3,
        selfKnowledge: 0,
        faithfulness: 2 / 3,
      },
    },
    {
      // The prefilter sent no (claim, passage) pair: nothing is entailed by a passage.
      name: 'all chunk pairs null (prefilter skipped everything)',
      m: matrices({ rg: 'EN', gr: 'EN', rc: ['---', '---'], gc: ['---', '---'] }),
      k: 3,
      expected: {
        precision: 1 / 2,
        recall: 1 / 2,
        f1: 1 / 2,
        claimRecall: 0,
        contextPrecision: 0,
        contextUtilization: 0,
        noiseSensitivityRelevant: 0,
        noiseSensitivityIrrelevant: 0,
        hallucination: 1 / 2,
        selfKnowledge: 1 / 2,
        faithfulness: 0,
      },
    },
  ];

  for (const { name, m, k, expected } of cases) {
    it(`${name}: hand-computed, the reference implementation and the source agree`, () => {
      expectMetrics(referenceMetrics(m, k), expected);
      expectMetrics(answerMetrics({ labels: m, passages: k, failed: [], retrieval: true }), expected);
    });
  }

  it('closed-book (no passages): only precision, recall and F1', () => {
    const m = matrices({ rg: 'EEN', gr: 'ENNN', rc: ['', '', ''], gc: ['', '', '', ''] });
    const expected = { precision: 2 / 3, recall: 1 / 4, f1: (2 * (2 / 3) * (1 / 4)) / (2 / 3 + 1 / 4) };
    expectMetrics(answerMetrics({ labels: m, passages: 0, failed: [], retrieval: false }), expected);
    const reference = referenceMetrics(m, 0);
    expectMetrics(Object.fromEntries(CLOSED_BOOK_METRICS.map((n) => [n, reference[n]])), expected);
  });

  it('a failed check leaves exactly the metrics that read its matrix uncomputed', () => {
    const m = matrices({ rg: 'EN', gr: 'EN', rc: ['E-', 'NE'], gc: ['E-', 'NN'] });
    const got = answerMetrics({ labels: m, passages: 2, failed: [{ what: 'goldVsChunks', claim: 0, passage: 1, error: 'x' }], retrieval: true });
    const full = referenceMetrics(m, 2);
    const readsGoldChunks: Metric[] = ['claimRecall', 'contextPrecision', 'contextUtilization', 'noiseSensitivityRelevant', 'noiseSensitivityIrrelevant'];
    expectMetrics(got, Object.fromEntries(METRICS.map((n) => [n, readsGoldChunks.includes(n) ? null : full[n]])));
  });
});

// ---------------------------------------------------------------------------------------------
// Through the real CLI on a plain run of the demo whose model is a local OpenAI-compatible server.

interface SummaryJson {
  cells: {
    model: string;
    condition: string;
    cost?: { durationMs?: number } | null;
    diagnostics?: {
      decomposition: { baseline: string; n: number; meanDiff: number | null; helped: { n: number; contribution: number }; hurt: { n: number; contribution: number }; unchanged: { n: number; contribution: number } } | null;
      claims: Record<string, { mean: number | null; n: number; failed: number }>;
      diagnosed: number;
      diagnosticsCost: Record<string, number | boolean> | null;
    };
  }[];
  paired: { model: string; condition: string; baseline: string; n: number; meanDiff: number | null }[];
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;
const completeLines = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').slice(0, -1).filter((l) => l.trim()) : []);
const tmpFiles = (dir: string) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.tmp'));

/**
 * What a diagnosis' figures may differ in between an interrupted-and-resumed diagnosis and an
 * uninterrupted one: wall time only (the run's `cells[].cost.durationMs`). The cells' diagnostics
 * cost counts what the answers' diagnoses need (calls and estimated tokens), not what an invocation
 * happened to send, so it must be identical too; what was sent is summed in diagnostics.json.
 */
/** A record's figures of what one invocation sent (and its wall time). */
const RECORD_SENT_FIGURES = ['extractorCallsSent', 'checkerCallsSent', 'promptTokensSent', 'completionTokensSent', 'estimatedTokensSent', 'durationMs'] as const;

function comparableSummary(path: string): string {
  const summary = JSON.parse(summaryWithoutTiming(readFileSync(path, 'utf8'))) as { cells: { diagnostics?: { diagnosticsCost?: Record<string, unknown> | null } }[] };
  return JSON.stringify(summary, null, 2);
}

describe('hisrag diagnose through the CLI', () => {
  let dir: string;
  let modelServer: OpenAIServer;
  let checkerServer: OpenAIServer;
  let runDir: string;
  let run: CliResult;
  let requestsAfterRun = 0;
  let toDiagnose = 0;
  const copies = { killed: '', full: '' };
  let claimSettings: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-diagnose-'));
    modelServer = await startOpenAIServer({ respond: answerResponder });
    checkerServer = await startOpenAIServer({ respond: delayedClaimResponder(15) });
    const config = demoConfigIn(
      dir,
      (c) => {
        c.benchmark.limit = 8;
        c.retrieval.k = [10, 50];
        c.models = [{ name: 'openai', baseURL: modelServer.url, model: 'm', label: 'm', concurrency: 8, retries: 2, retryBaseMs: 1, retryMaxMs: 10, timeoutMs: 20_000 }];
        delete c.diagnostics;
      },
      'plain.yaml',
    );
    run = await runCli(['run', config, '--run-id', 'plain', '--no-progress']);
    runDir = join(dir, 'runs', 'plain');
    requestsAfterRun = modelServer.chatRequests().length;
    toDiagnose = completeLines(join(runDir, 'items.jsonl'))
      .map((l) => JSON.parse(l) as { score: { status: string }; response: unknown })
      .filter((r) => r.score.status === 'scored' && r.response !== null).length;
    // Copies before any diagnosis: one to interrupt, one to diagnose without interruption.
    copies.killed = join(dir, 'runs', 'killed');
    copies.full = join(dir, 'runs', 'full');
    cpSync(runDir, copies.killed, { recursive: true });
    cpSync(runDir, copies.full, { recursive: true });
    const endpoint = { baseURL: checkerServer.url, concurrency: 4, httpRetries: 2, retryBaseMs: 1, retryMaxMs: 10, timeoutMs: 20_000 };
    claimSettings = [
      '--set',
      `checker=${stringify({ name: 'openai', model: 'checker', ...endpoint }, { flow: true }).trim()}`,
      '--set',
      `extractor=${stringify({ name: 'openai', model: 'extractor', ...endpoint }, { flow: true }).trim()}`,
      '--set',
      'concurrency=2',
    ];
  }, 120_000);

  afterAll(async () => {
    await modelServer?.close();
    await checkerServer?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the plain run answered through the local model server and has no diagnostics', () => {
    expect(run.stderr).not.toContain('internal error');
    expect(run.code).toBe(0);
    expect(requestsAfterRun).toBeGreaterThan(0);
    expect(toDiagnose).toBe(8 * 3);
    expect(existsSync(join(runDir, 'diagnostics.jsonl'))).toBe(false);
    expect(run.stdout).not.toMatch(/^why \(/m);
  });

  it('adds the figures with zero further requests to the run’s model server', async () => {
    const written = completeLines(join(runDir, 'items.jsonl'));
    const diagnosed = await runCli(['diagnose', runDir, '--no-progress']);
    expect(diagnosed.stderr).not.toContain('internal error');
    expect(diagnosed.code).toBe(0);
    expect(modelServer.chatRequests().length).toBe(requestsAfterRun);
    expect(modelServer.requests.length).toBe(requestsAfterRun);
    // The "why" table: a line per condition with helped / hurt / unchanged and their contributions.
    expect(diagnosed.stdout).toMatch(/^why \(model: m; vs closed-book, δ 10 \((RS|RS\/MCQ), 0–100\)\)/m);
    for (const condition of ['rag@10', 'rag@50']) expect(diagnosed.stdout).toMatch(new RegExp(`^${condition}\\s+\\d+ \\([+-]\\d+\\.\\d\\d\\)\\s+\\d+ \\(`, 'm'));
    expect(diagnosed.stdout).toMatch(/^claim diagnostics \(model: m;/m);
    const summary = readJson<SummaryJson>(join(runDir, 'summary.json'));
    expect(summary.cells.map((c) => c.condition)).toEqual(['closed-book', 'rag@10', 'rag@50']);
    for (const cell of summary.cells) {
      expect(cell.diagnostics, cell.condition).toBeDefined();
      expect(cell.diagnostics!.diagnosed).toBe(8);
      if (cell.condition === 'closed-book') {
        expect(cell.diagnostics!.decomposition).toBeNull();
        expect(Object.keys(cell.diagnostics!.claims).sort()).toEqual([...CLOSED_BOOK_METRICS].sort());
      } else {
        expect(cell.diagnostics!.decomposition).toMatchObject({ baseline: 'closed-book', n: 8 });
        expect(Object.keys(cell.diagnostics!.claims).sort()).toEqual([...METRICS].sort());
      }
    }
    // The records themselves carry the diagnoses (items.jsonl is rewritten).
    const records = completeLines(join(runDir, 'items.jsonl')).map((l) => JSON.parse(l) as { diagnostics?: unknown });
    expect(records.filter((r) => r.diagnostics)).toHaveLength(toDiagnose);
    // …and nothing else of a line changes: without its diagnosis, each is the line the run wrote.
    expect(records.map(({ diagnostics: _diagnosis, ...rest }) => JSON.stringify(rest))).toEqual(written);
    expect(tmpFiles(runDir)).toEqual([]);
  });

  it('kill -9 in the middle, then hisrag diagnose again: the summary of an uninterrupted diagnosis', async () => {
    const records = join(copies.killed, 'diagnostics.jsonl');
    let linesAtKill = -1;
    const killed = await runCli(['diagnose', copies.killed, '--no-progress', ...claimSettings], {
      onSpawn: (child) => {
        const poll = setInterval(() => {
          const n = completeLines(records).length;
          if (n >= 1 && n < toDiagnose) {
            linesAtKill = n;
            child.kill('SIGKILL');
            clearInterval(poll);
          }
        }, 5);
        child.on('exit', () => clearInterval(poll));
      },
    });
    expect(killed.signal, `diagnosis finished before it could be killed:\n${killed.stdout}\n${killed.stderr}`).toBe('SIGKILL');
    expect(linesAtKill).toBeGreaterThanOrEqual(1);
    expect(linesAtKill).toBeLessThan(toDiagnose);
    const requestsBeforeResume = checkerServer.chatRequests().length;

    const resumed = await runCli(['diagnose', copies.killed, '--no-progress', ...claimSettings]);
    expect(resumed.stderr).not.toContain('internal error');
    expect(resumed.code).toBe(0);
    const already = Number(/(\d+) already diagnosed/.exec(resumed.stdout)?.[1]);
    expect(already).toBeGreaterThanOrEqual(linesAtKill);
    expect(already).toBeLessThan(toDiagnose);
    expect(checkerServer.chatRequests().length).toBeGreaterThan(requestsBeforeResume);

    const full = await runCli(['diagnose', copies.full, '--no-progress', ...claimSettings]);
    expect(full.stderr).not.toContain('internal error');
    expect(full.code).toBe(0);
    expect(full.stdout).toContain(`${toDiagnose} answers, 0 already diagnosed, ${toDiagnose} to go`);

    expect(comparableSummary(join(copies.killed, 'summary.json'))).toBe(comparableSummary(join(copies.full, 'summary.json')));

    // One line per diagnosed answer: the resumed diagnosis appended only what was missing.
    const lines = completeLines(records).map((l) => JSON.parse(l) as { key: string });
    expect(lines).toHaveLength(toDiagnose);
    expect(new Set(lines.map((l) => l.key)).size).toBe(toDiagnose);
    const summary = readJson<SummaryJson>(join(copies.killed, 'summary.json'));
    expect(summary.cells.reduce((n, c) => n + (c.diagnostics?.diagnosed ?? 0), 0)).toBe(toDiagnose);
    expect(readFileSync(records, 'utf8').endsWith('\n')).toBe(true);
    expect(tmpFiles(copies.killed)).toEqual([]);
    expect(readJson<{ complete: boolean }>(join(copies.killed, 'diagnostics.json')).complete).toBe(true);
    // The per-answer diagnoses themselves are the same too.
    const byKey = async (d: string) =>
      new Map(
        (await loadRun(d)).records.map((r) => {
          const diagnostics = r.diagnostics && structuredClone(r.diagnostics);
          // What an invocation sent (and how long it took) depends on what the cache already held.
          const cost = diagnostics?.diagnosticsCost as Record<string, unknown> | undefined;
          if (cost) for (const key of RECORD_SENT_FIGURES) delete cost[key];
          return [r.key, diagnostics];
        }),
      );
    expect(await byKey(copies.killed)).toEqual(await byKey(copies.full));
    // Each answer's sent figures differ only downwards (the cache answered the rest); the run directory sums them.
    const sentOf = async (d: string) => new Map((await loadRun(d)).records.flatMap((r) => (r.diagnostics ? [[r.key, r.diagnostics.diagnosticsCost] as const] : [])));
    const [resumedSent, fullSent] = [await sentOf(copies.killed), await sentOf(copies.full)];
    const total = (m: typeof fullSent) => [...m.values()].reduce((n, c) => n + c.checkerCallsSent, 0);
    expect(total(resumedSent)).toBeLessThanOrEqual(total(fullSent));
    const spent = readJson<{ spent: { checkerCalls: number } }>(join(copies.killed, 'diagnostics.json')).spent;
    expect(spent.checkerCalls).toBeGreaterThanOrEqual(total(resumedSent));
  }, 120_000);

  /** Every record's metrics from its labels; every cell's means ×100 from its records. */
  async function expectRecomputable(directory: string): Promise<number> {
    const loaded = await loadRun(directory);
    const summary = readJson<SummaryJson>(join(directory, 'summary.json'));
    let checked = 0;
    for (const cell of summary.cells) {
      const records = loaded.records.filter((r) => r.model === cell.model && r.condition === cell.condition && r.diagnostics);
      expect(records.length, cell.condition).toBeGreaterThan(0);
      const values = new Map<Metric, number[]>();
      const failed = new Map<Metric, number>();
      for (const record of records) {
        const d = record.diagnostics!;
        const k = d.contextIds.length;
        expect(d.contextIds).toEqual(record.retriever === null ? [] : record.contextIds);
        expect(d.labels.responseVsGold).toHaveLength(d.responseClaims.length);
        expect(d.labels.goldVsResponse).toHaveLength(d.goldClaims.length);
        expect(d.labels.responseVsChunks).toHaveLength(d.responseClaims.length);
        expect(d.labels.goldVsChunks).toHaveLength(d.goldClaims.length);
        for (const row of [...d.labels.responseVsChunks, ...d.labels.goldVsChunks]) expect(row).toHaveLength(k);
        const names = record.retriever === null ? CLOSED_BOOK_METRICS : [...METRICS];
        expect(Object.keys(d.metrics).sort(), record.key).toEqual([...names].sort());
        const expected = referenceMetrics(d.labels, k);
        for (const name of names) {
          const got = d.metrics[name];
          if (d.failed.length === 0) expect(got, `${record.key} ${name}`).not.toBeNull();
          if (got === null || got === undefined) {
            failed.set(name, (failed.get(name) ?? 0) + 1);
            continue;
          }
          expect(got, `${record.key} ${name}`).toBeCloseTo(expected[name], 12);
          values.set(name, [...(values.get(name) ?? []), got]);
          checked++;
        }
      }
      for (const name of Object.keys(cell.diagnostics!.claims) as Metric[]) {
        const list = values.get(name) ?? [];
        const claim = cell.diagnostics!.claims[name]!;
        expect(claim.n, `${cell.condition} ${name}`).toBe(list.length);
        expect(claim.failed, `${cell.condition} ${name}`).toBe(failed.get(name) ?? 0);
        if (list.length === 0) expect(claim.mean).toBeNull();
        else expect(claim.mean!, `${cell.condition} ${name}`).toBeCloseTo((100 * list.reduce((a, b) => a + b, 0)) / list.length, 9);
      }
      // The results API computes the same figures as summary.json.
      const apiCell = loaded.summary.cells.find((c) => c.model === cell.model && c.condition === cell.condition)!;
      expect(JSON.parse(JSON.stringify(apiCell.diagnostics?.claims))).toEqual(cell.diagnostics!.claims);
    }
    return checked;
  }

  it('every metric in summary.json is recomputed from the records’ labels (offline stand-ins)', async () => {
    expect(existsSync(join(runDir, 'diagnostics.json'))).toBe(true);
    expect(await expectRecomputable(runDir)).toBeGreaterThan(0);
  });

  it('every metric in summary.json is recomputed from the records’ labels (LLM checker, all three labels)', async () => {
    expect(existsSync(join(copies.full, 'diagnostics.json'))).toBe(true);
    const loaded = await loadRun(copies.full);
    const labels = new Set(loaded.records.flatMap((r) => (r.diagnostics ? Object.values(r.diagnostics.labels).flat(2) : [])));
    expect([...labels].sort()).toEqual(['contradiction', 'entailment', 'neutral', null].sort());
    expect(await expectRecomputable(copies.full)).toBeGreaterThan(0);
  });

  it('helped + hurt + unchanged contributions add up to the paired Δ of summary.json, with the same n', () => {
    for (const directory of [runDir, copies.full]) {
      const summary = readJson<SummaryJson>(join(directory, 'summary.json'));
      const decomposed = summary.cells.filter((c) => c.condition !== 'closed-book');
      expect(decomposed.length).toBe(2);
      for (const cell of decomposed) {
        const d = cell.diagnostics!.decomposition!;
        const paired = summary.paired.find((p) => p.model === cell.model && p.condition === cell.condition)!;
        expect(paired.baseline).toBe(d.baseline);
        expect(d.n).toBe(paired.n);
        expect(d.helped.n + d.hurt.n + d.unchanged.n).toBe(d.n);
        expect(d.helped.contribution + d.hurt.contribution + d.unchanged.contribution).toBeCloseTo(paired.meanDiff!, 9);
        expect(d.meanDiff!).toBeCloseTo(paired.meanDiff!, 9);
        expect(d.helped.contribution).toBeGreaterThanOrEqual(0);
        expect(d.hurt.contribution).toBeLessThanOrEqual(0);
      }
    }
  });
});
