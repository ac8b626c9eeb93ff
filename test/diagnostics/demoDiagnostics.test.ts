import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type RunSummary } from '../../src/runFiles/summary.js';
import { SummaryFileSchema } from '../../src/runFiles/summaryFile.js';
import { loadRun } from '../../src/results/loadRun.js';
import { diagnosticsRows } from '../../src/results/diagnosticsRows.js';
import { CLAIM_METRICS } from '../../src/runFiles/diagnosis.js';
import { demoConfigIn, multiIndexDemoConfigIn } from '../helpers/demoConfig.js';
import { runCli, type CliResult } from '../helpers/runCli.js';

/** The rows of the printed "why" table: condition → helped, hurt, unchanged (n and contribution) and Δ. */
function whyRows(stdout: string): Map<string, { helped: [number, number]; hurt: [number, number]; unchanged: [number, number]; delta: number; split?: number[] }> {
  const block = stdout.slice(stdout.indexOf('why (model:'));
  const rows = new Map();
  for (const line of block.split('\n').slice(3)) {
    if (!line.trim() || line.startsWith('cut:')) break;
    const m = /^(\S+)\s+(\d+) \(([-+][\d.]+)\)\s+(\d+) \(([-+][\d.]+)\)\s+(\d+) \(([-+][\d.]+)\)\s+([-+][\d.]+)(?:\s+(\d+) \/ (\d+) \/ (\d+) \/ (\d+))?\s+\d+$/.exec(line);
    expect(m, `why row: ${line}`).not.toBeNull();
    rows.set(m![1], {
      helped: [Number(m![2]), Number(m![3])],
      hurt: [Number(m![4]), Number(m![5])],
      unchanged: [Number(m![6]), Number(m![7])],
      delta: Number(m![8]),
      ...(m![9] !== undefined ? { split: [m![9], m![10], m![11], m![12]].map(Number) } : {}),
    });
  }
  return rows;
}

/** The printed Δ of the headline table, by condition. */
function headlineDeltas(stdout: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of stdout.matchAll(/^(\S+)\s+[\d.]+\s+\[[\d.]+, [\d.]+\]\s+([-+][\d.]+) \[/gm)) out.set(m[1]!, Number(m[2]));
  return out;
}

describe('experiments/demo-diagnostics.yaml: ProHist-format questions, rubric points as gold claims', () => {
  let dir: string;
  let result: CliResult;
  let summary: RunSummary;
  let report: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-demo-diagnostics-'));
    const file = demoConfigIn(dir, () => {}, 'demo-diagnostics.yaml', 'demo-diagnostics.yaml');
    result = await runCli(['run', file, '--run-id', 'diag', '--no-progress']);
    summary = SummaryFileSchema.parse(JSON.parse(readFileSync(join(dir, 'runs', 'diag', 'summary.json'), 'utf8')));
    report = readFileSync(join(dir, 'runs', 'diag', 'report.html'), 'utf8');
  }, 240_000);

  it('runs offline, closed-book, RAG at several k and two methods, and says the claim models are stand-ins', () => {
    expect(result.stderr).not.toContain('internal error');
    expect(result.code).toBe(0);
    expect(summary.conditions).toEqual(expect.arrayContaining(['closed-book', 'rag@10', 'rag@100', 'refine-extractive@50', 'iter-retgen@100']));
    expect(result.stdout).toContain('claims from offline stand-ins');
    expect(result.stdout).toMatch(/claim extractor: sentences \(offline stand-in/);
  });

  it('prints the summary table once (the diagnosed one), not once before and once after diagnosis', () => {
    // The means table's header line (condition, mean, 95% CI …): one per model, once.
    expect(result.stdout.split('\n').filter((line) => /^condition\s+mean RS(\/MCQ)? \(0–100\)\s+95% CI/.test(line))).toHaveLength(summary.models.length);
  });

  it('prints helped / hurt / unchanged per condition, with contributions that add up to the printed Δ', () => {
    const rows = whyRows(result.stdout);
    const deltas = headlineDeltas(result.stdout);
    expect(rows.size).toBe(summary.conditions.length - 1);
    for (const [condition, row] of rows) {
      expect(row.helped[0] + row.hurt[0] + row.unchanged[0]).toBe(14);
      expect(row.helped[1] + row.hurt[1] + row.unchanged[1]).toBeCloseTo(row.delta, 1);
      expect(row.delta).toBeCloseTo(deltas.get(condition)!, 2);
    }
  });

  it('prints the eleven claim metrics per condition, closed-book getting only precision, recall and F1', () => {
    const block = result.stdout.slice(result.stdout.indexOf('claim diagnostics'));
    expect(block).toMatch(/^closed-book\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+–\s+–/m);
    expect(block).toMatch(/^rag@100(\s+[\d.]+){11}\s+[\d.]+ \/ [\d.]+$/m);
  });

  it('summary.json carries the decomposition and the claim metrics of every cell', () => {
    for (const cell of summary.cells) {
      const d = cell.diagnostics!;
      expect(d.diagnosed).toBe(14);
      if (cell.condition === 'closed-book') {
        expect(d.decomposition).toBeNull();
        expect(Object.keys(d.claims).sort()).toEqual(['f1', 'precision', 'recall']);
        continue;
      }
      const paired = summary.paired.find((p) => p.condition === cell.condition)!;
      expect(d.decomposition!.helped.contribution + d.decomposition!.hurt.contribution + d.decomposition!.unchanged.contribution).toBeCloseTo(paired.meanDiff!, 9);
      // The demo's questions name no gold passages: no evidence split.
      expect(d.decomposition!.byEvidence).toBeNull();
      expect(Object.keys(d.claims).sort()).toEqual([...CLAIM_METRICS].sort());
      expect(d.checkerCalls!).toBeLessThanOrEqual(d.allPairsCalls!);
    }
    const rag100 = summary.cells.find((c) => c.condition === 'rag@100')!.diagnostics!;
    // docs/performance.md measures 5.7% (13.5 of 238.1 calls per answer) with the stopping rule, 8.0% without.
    expect(rag100.checkerCalls! / rag100.allPairsCalls!).toBeLessThanOrEqual(0.06);
  });

  it('the report has a "Why" section: help/hurt bars, claim metrics, their charts against k, and claims per answer', () => {
    expect(report).toContain('<h2 id="why">');
    expect(report).toContain('class="marks help-hurt-chart"');
    expect(report).toContain('<table class="claim-metrics">');
    expect((report.match(/class="marks claim-metric-chart"/g) ?? []).length).toBe(11);
    expect(report).toMatch(/<li class="claim (ent|neu)">/);
  });

  it('the results API gives one row per diagnosed answer, hurt and helped against the baseline', async () => {
    const run = await loadRun(join(dir, 'runs', 'diag'));
    const rows = diagnosticsRows(run);
    expect(rows).toHaveLength(14 * summary.conditions.length);
    const rag10 = rows.filter((r) => r.condition === 'rag@10');
    const cell = summary.cells.find((c) => c.condition === 'rag@10')!.diagnostics!;
    expect(rag10.filter((r) => r.outcome === 'helped')).toHaveLength(cell.decomposition!.helped.n);
    expect(rag10.reduce((n, r) => n + r.faithfulness!, 0) / rag10.length).toBeCloseTo(cell.claims.faithfulness!.mean!, 9);
  });
});

/** demo-longhisdoc-diagnostics.yaml with its artefacts and runs written inside `dir`. */
function longhisdocConfigIn(dir: string): string {
  const { config } = multiIndexDemoConfigIn(dir, 'demo-longhisdoc-diagnostics.yaml');
  const file = join(dir, 'longhisdoc.yaml');
  writeFileSync(file, stringify(config));
  return file;
}

describe('experiments/demo-longhisdoc-diagnostics.yaml: LongHisDoc-format sample with gold pages', () => {
  let dir: string;
  let result: CliResult;
  let summary: RunSummary;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-demo-lhd-diagnostics-'));
    result = await runCli(['run', longhisdocConfigIn(dir), '--run-id', 'diag', '--no-progress']);
    summary = SummaryFileSchema.parse(JSON.parse(readFileSync(join(dir, 'runs', 'diag', 'summary.json'), 'utf8')));
  }, 240_000);

  it('prints each condition’s hurt items split by what became of their gold pages, adding up to the hurt count', () => {
    expect(result.code).toBe(0);
    const rows = whyRows(result.stdout);
    expect(rows.size).toBe(summary.conditions.length - 1);
    for (const [, row] of rows) {
      expect(row.split).toBeDefined();
      expect(row.split!.reduce((a, b) => a + b, 0)).toBe(row.hurt[0]);
      expect(row.helped[1] + row.hurt[1] + row.unchanged[1]).toBeCloseTo(row.delta, 1);
    }
  });

  it('every helped and hurt item with gold is placed by evidence status and by best gold rank', () => {
    for (const cell of summary.cells) {
      const d = cell.diagnostics!.decomposition;
      if (!d) continue;
      for (const outcome of ['helped', 'hurt', 'unchanged'] as const) {
        const byStatus = Object.values(d.byEvidence![outcome]!).reduce((n, g) => n + g.n, 0);
        const byRank = Object.values(d.byGoldRank![outcome]!).reduce((n, g) => n + g.n, 0);
        expect(byRank).toBe(byStatus);
        expect(byStatus).toBeLessThanOrEqual(d[outcome].n);
      }
      // 17 of the sample's 20 questions name evidence pages (the rest are unanswerable).
      const withGold = ['helped', 'hurt', 'unchanged'].reduce((n, o) => n + Object.values(d.byEvidence![o as 'hurt']!).reduce((m, g) => m + g.n, 0), 0);
      expect(withGold).toBe(17);
    }
    // At k = 10 a book's gold pages are always among the retrieved pages (the books have ≤ 10 pages).
    const deep = summary.cells.find((c) => c.condition === 'bm25/rag@10')!.diagnostics!.decomposition!;
    for (const outcome of ['helped', 'hurt', 'unchanged'] as const) expect(deep.byEvidence![outcome]!.notRetrieved!.n).toBe(0);
  });

  it('uses the answers’ elements as gold claims', async () => {
    const run = await loadRun(join(dir, 'runs', 'diag'));
    const record = run.records.find((r) => r.itemId === '90001_1' && r.condition === 'bm25/rag@3')!;
    expect(record.diagnostics!.goldClaims).toEqual(['千字文']);
    expect(record.diagnostics!.goldClaimsFrom).toBe('answer');
    expect(record.diagnostics!.evidence).toMatchObject({ gold: ['page:3'] });
  });
});
