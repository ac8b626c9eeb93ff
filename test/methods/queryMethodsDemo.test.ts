import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { estimateRun } from '../../src/app/dryRun.js';
import type { PlanCell, RunPlan } from '../../src/runFiles/plan.js';
import { RunItemRecordSchema, type RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { runCli, type CliResult } from '../helpers/runCli.js';
import { queryMethodsConfigIn } from './queryMethodsConfig.js';

const METHODS = ['hyde', 'query-rewrite', 'rag-fusion', 'crag', 'crag-ce', 'compress-0.5'];

const detailOf = (r: RunItemRecord, kind: string) => r.trace.find((s) => s.kind === kind)?.detail;

describe('experiments/demo-query-methods.yaml, offline through the CLI', () => {
  let dir: string;
  let result: CliResult;
  let records: RunItemRecord[];
  let plan: RunPlan;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-demo-query-methods-'));
    // Eight questions: at k = 20 the stand-in's grades give CRAG all three labels.
    const file = queryMethodsConfigIn(dir, (config) => (config.benchmark.limit = 8));
    result = await runCli(['run', file, '--run-id', 'query', '--no-progress']);
    records = readFileSync(join(dir, 'runs', 'query', 'items.jsonl'), 'utf8').trim().split('\n').map((l) => RunItemRecordSchema.parse(JSON.parse(l)));
    plan = await estimateRun(await loadExperimentConfig(file));
  }, 600_000);

  it('exits 0 with every method at every k of the grid, and RAG@100 compressed to the budget of RAG@20 as a condition', () => {
    expect(result.stderr).not.toContain('internal error');
    expect(result.code, result.stderr).toBe(0);
    for (const method of ['standard', ...METHODS]) for (const k of [5, 20]) expect(result.stdout).toMatch(new RegExp(`^${method}@${k}\\s+\\d+\\.\\d\\d\\s`, 'm'));
    expect(result.stdout).toMatch(/^compress-100to20@100\s+\d+\.\d\d\s/m);
    expect(result.stdout).toMatch(/^standard-100@100\s+\d+\.\d\d\s/m);
    // The generated scorer declares itself a stand-in in the run.
    expect(result.stdout).toMatch(/compress \(ratio 0\.5\): token information by .*demo-causal-lm \(generated fixture causal LM: an offline stand-in/);
    expect(records).toHaveLength(8 * (1 + 2 * 7 + 1 + 1));
    expect(records.filter((r) => r.score.status !== 'scored')).toEqual([]);
  });

  it('traces each method\'s control flow, with its cost', () => {
    for (const r of records) {
      expect(r.cost!.generationCalls).toBe(r.trace.filter((s) => s.kind === 'generate').length);
      expect(r.cost!.retrievalCalls).toBe(r.trace.filter((s) => s.kind === 'retrieve').length);
    }
    const of = (prefix: string) => records.filter((r) => r.condition.startsWith(prefix));
    for (const r of of('hyde@')) {
      expect(r.trace.map((s) => `${s.kind}:${s.label}`)).toEqual(['generate:hypothesis[1]', 'retrieve:retrieve', 'generate:answer']);
      // The search text is the question and the hypothesis the model wrote.
      expect(r.trace[1]!.query).toBe(`${r.question}\n${r.trace[0]!.response}`);
    }
    for (const r of of('query-rewrite@')) {
      expect(r.trace.map((s) => s.label)).toEqual(['rewrite', 'retrieve', 'answer']);
      expect(r.trace[1]!.query).toBe(r.trace[0]!.response!.split('\n')[0]);
      expect(r.trace[1]!.query).not.toBe(r.question);
    }
    for (const r of of('rag-fusion@')) {
      const retrievals = r.trace.filter((s) => s.kind === 'retrieve');
      expect(retrievals[0]!.query).toBe(r.question);
      expect(retrievals.length).toBeGreaterThan(1);
      const fuse = detailOf(r, 'fuse')!;
      expect(fuse.queries).toBe(retrievals.length);
      // Every kept passage with its fused rank and its rank in each query's list; the answer read the top k fused.
      const ranks = String(fuse.ranks).split('; ');
      expect(ranks).toHaveLength(r.k!);
      expect(ranks.map((entry) => entry.split(' ')[1])).toEqual(r.contextIds);
      for (const entry of ranks) expect(entry.match(/\[(.+)\]$/)![1]!.split(',')).toHaveLength(retrievals.length);
    }
    const labels = new Set<string>();
    for (const r of of('crag@')) {
      const evaluation = detailOf(r, 'evaluate')!;
      const grades = r.trace.filter((s) => s.label.startsWith('grade['));
      expect(grades).toHaveLength(r.k!);
      expect(String(evaluation.grades).split(',')).toHaveLength(r.k!);
      const label = String(evaluation.label);
      labels.add(`${r.k}:${label}`);
      const branch = { correct: 'refine', incorrect: 'fallback', ambiguous: 'refine+fallback' }[label];
      expect(evaluation.branch).toBe(branch);
      expect(Boolean(detailOf(r, 'refine')), r.key).toBe(label !== 'incorrect');
      const fallback = detailOf(r, 'retrieve-fallback');
      expect(Boolean(fallback), r.key).toBe(label !== 'correct');
      if (fallback) {
        expect(fallback.retriever).toBe('bm25');
        // The fallback's passages reach the record's `retrieved` (and, not already read, the prompt).
        for (const id of String(fallback.ids).split(',')) expect(r.retrieved.map((c) => c.id)).toContain(id);
      }
      const grades01 = String(evaluation.grades).split(',').map(Number);
      if (label === 'correct') expect(Math.max(...grades01)).toBeGreaterThanOrEqual(0.6);
      if (label === 'incorrect') expect(Math.max(...grades01)).toBeLessThan(0.3);
    }
    expect([...labels].filter((l) => l.startsWith('20:')).sort()).toEqual(['20:ambiguous', '20:correct', '20:incorrect']);
    // With the cross-encoder as evaluator: no grading call, one scoring step, the same three branches (at k = 5).
    const ceLabels = new Set<string>();
    for (const r of of('crag-ce@')) {
      expect(r.trace.filter((s) => s.kind === 'generate').map((s) => s.label)).toEqual(['answer']);
      expect(String(detailOf(r, 'grade')!.scores).split(',')).toHaveLength(r.k!);
      const evaluation = detailOf(r, 'evaluate')!;
      expect(evaluation.evaluator).toBe('cross-encoder');
      const label = String(evaluation.label);
      if (r.k === 5) ceLabels.add(label);
      expect(Boolean(detailOf(r, 'retrieve-fallback')), r.key).toBe(label !== 'correct');
      expect(Boolean(detailOf(r, 'refine')), r.key).toBe(label !== 'incorrect');
    }
    expect([...ceLabels].sort()).toEqual(['ambiguous', 'correct', 'incorrect']);
  });

  it('compresses to its configured ratio, and RAG@100 to the token budget of RAG@20, within ±5% of tokens', () => {
    for (const r of records.filter((x) => x.condition.startsWith('compress'))) {
      const d = detailOf(r, 'compress')!;
      expect(d.standIn).toBe(true);
      const target = Number(d.tokensTarget);
      expect(Math.abs(Number(d.tokensAfter) - target) / target, r.key).toBeLessThanOrEqual(0.05);
      if (r.condition.startsWith('compress-0.5')) expect(Math.abs(Number(d.ratio) - 0.5)).toBeLessThanOrEqual(0.05 * 0.5);
      else {
        // The budget is what the first 20 of the 100 passages hold: the compressed prompt is near standard@20's, far below standard@100's.
        const twenty = records.find((x) => x.condition === 'compress-0.5@20' && x.itemId === r.itemId)!;
        expect(target).toBe(Number(detailOf(twenty, 'compress')!.tokensBefore));
        expect(Number(d.passages)).toBe(100);
        expect(Number(d.promptTokensAfter)).toBeLessThan(Number(d.promptTokensBefore) / 2);
      }
    }
  });

  it('the dry-run plan bounds every method\'s recorded calls and prompt tokens', () => {
    for (const cell of plan.cells) {
      const mine = records.filter((r) => r.condition === cell.condition);
      expect(mine, cell.condition).toHaveLength(cell.answers);
      const inside = (label: string, actual: number, range: PlanCell['generationCalls']) => {
        expect(actual, `${cell.condition} ${label}`).toBeGreaterThanOrEqual(range.min);
        if (range.max !== null) expect(actual, `${cell.condition} ${label}`).toBeLessThanOrEqual(range.max);
      };
      inside('calls', mine.reduce((n, r) => n + r.cost!.generationCalls, 0), cell.generationCalls);
      inside('prompt tokens', mine.reduce((n, r) => n + r.cost!.promptTokens, 0), cell.promptTokens);
      // None of these methods puts an earlier output into a later prompt unbounded: every prompt bound is finite.
      expect(cell.promptTokens.max, cell.condition).not.toBeNull();
    }
    // CRAG grades each passage: its calls are exactly k + 1 an answer.
    const crag = plan.cells.find((c) => c.condition === 'crag@20')!;
    expect(crag.generationCalls).toEqual({ min: 8 * 21, max: 8 * 21 });
  });
});
