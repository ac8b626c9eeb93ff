import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunItemRecordSchema, type RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { type RunSummary } from '../../src/runFiles/summary.js';
import { SummaryFileSchema } from '../../src/runFiles/summaryFile.js';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { runCli, type CliResult } from '../helpers/runCli.js';

const CONDITIONS = ['closed-book', 'standard', 'refine-extractive', 'refine-abstractive', 'adaptive', 'iter-retgen', 'ircot', 'self-ask', 'sure'];

describe('experiments/demo-methods.yaml, offline through the CLI', () => {
  let dir: string;
  let result: CliResult;
  let records: RunItemRecord[];
  let summary: RunSummary;
  let report: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-demo-methods-'));
    const file = demoConfigIn(dir, (config) => (config.benchmark.limit = 6), 'demo-methods.yaml', 'demo-methods.yaml');
    result = await runCli(['run', file, '--run-id', 'methods', '--no-progress']);
    const runDir = join(dir, 'runs', 'methods');
    records = readFileSync(join(runDir, 'items.jsonl'), 'utf8').trim().split('\n').map((l) => RunItemRecordSchema.parse(JSON.parse(l)));
    summary = SummaryFileSchema.parse(JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')));
    report = readFileSync(join(runDir, 'report.html'), 'utf8');
  }, 240_000);

  it('exits 0 and prints, per condition, the mean with its CI, the difference against closed-book, retrieval calls and tokens', () => {
    expect(result.stderr).not.toContain('internal error');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/condition\s+mean RS(\/MCQ)? \(0–100\)\s+95% CI\s+Δ vs closed-book \[95% CI\]\s+p \(Holm, BH\)\s+recall\s+retrievals\s+tokens\s+scored/);
    for (const method of CONDITIONS.slice(1)) {
      for (const k of [5, 20]) {
        // name, mean, [lo, hi], +diff [lo, hi], recall, retrievals, tokens (estimated: *), scored
        expect(result.stdout).toMatch(new RegExp(`^${method}@${k}\\s+\\d+\\.\\d\\d\\s+\\[[\\d.]+, [\\d.]+\\]\\s+[+-][\\d.]+ \\[[-\\d.]+, [-\\d.]+\\]\\s+[\\d.]+ \\([\\d.]+, [\\d.]+\\)(?: †)?\\s+–\\s+\\d+\\.\\d\\s+\\d+\\*\\s+\\d+/\\d+`, 'm'));
      }
    }
    expect(result.stdout).toMatch(/adaptive@5: .*retrieved \d+% \(\d+\/6\)/);
  });

  it('scores every answer, with the trace and cost of every step', () => {
    expect(records).toHaveLength(6 * (1 + 8 * 2));
    expect(records.every((r) => r.score.status === 'scored')).toBe(true);
    for (const r of records) {
      expect(r.trace.length).toBeGreaterThan(0);
      expect(r.cost!.generationCalls).toBe(r.trace.filter((s) => s.kind === 'generate').length);
      expect(r.cost!.retrievalCalls).toBe(r.trace.filter((s) => s.kind === 'retrieve').length);
      expect(r.cost!.estimatedTokens).toBe(true);
      // `retrieved` is the union of what the retrieval steps returned.
      const union = new Set(r.trace.flatMap((s) => s.passages?.map((p) => p.id) ?? []));
      expect(new Set(r.retrieved.map((c) => c.id))).toEqual(union);
    }
  });

  it('iter-retgen and ircot records show several retrieval steps', () => {
    const retrievals = (r: RunItemRecord) => r.trace.filter((s) => s.kind === 'retrieve').length;
    expect(records.filter((r) => r.condition.startsWith('iter-retgen')).every((r) => retrievals(r) === 3)).toBe(true);
    expect(records.filter((r) => r.condition.startsWith('ircot')).some((r) => retrievals(r) >= 3)).toBe(true);
  });

  it('the summary carries cost per answer and method figures', () => {
    const sure = summary.cells.find((c) => c.condition === 'sure@20')!;
    const standard = summary.cells.find((c) => c.condition === 'standard@20')!;
    expect(standard.cost).toMatchObject({ retrievalCalls: 1, generationCalls: 1 });
    expect(sure.cost!.generationCalls).toBeGreaterThan(3);
    expect(summary.cells.find((c) => c.condition === 'adaptive@20')!.method.retrieved!.flag).toBe(true);
    expect(summary.cells.find((c) => c.condition === 'refine-extractive@20')!.method.compression!.mean).toBeLessThan(1);
  });

  it('the report shows score against k and score against cost for every method', () => {
    const depth = report.slice(report.indexOf('class="marks depth-chart"'), report.indexOf('</svg>', report.indexOf('class="marks depth-chart"')));
    const cost = report.slice(report.indexOf('class="marks cost-chart"'), report.indexOf('</svg>', report.indexOf('class="marks cost-chart"')));
    expect(depth.length).toBeGreaterThan(100);
    expect(cost.length).toBeGreaterThan(100);
    for (const method of CONDITIONS.slice(1)) {
      expect(depth).toContain(`>${method}</text>`);
      expect(cost).toContain(`>${method}</text>`);
    }
    expect(cost).toContain('>closed-book</text>');
    expect(cost).toContain('tokens per answer');
    // Error bars (Vega's error_bar_marks, one group per small multiple or panel): a line per method's point at least.
    const bars = [...cost.matchAll(/<g class="mark-rule role-mark [a-z0-9_]*error_bar_marks"[^>]*>([\s\S]*?)<\/g>/g)].map((m) => m[1]).join('');
    expect((bars.match(/<line /g) ?? []).length).toBeGreaterThanOrEqual(8);
    expect(report).toContain('Method trace');
  });
});
