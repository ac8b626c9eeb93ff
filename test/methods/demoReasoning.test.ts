import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunItemRecordSchema, type RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { runCli, type CliResult } from '../helpers/runCli.js';

const METHODS = ['search-o1', 'search-o1-completions', 'r1-searcher', 'research', 'search-r1', 'flare', 'flare-question'];
const ITEMS = 6;

describe('experiments/demo-reasoning.yaml, offline through the CLI', () => {
  let result: CliResult;
  let records: RunItemRecord[];
  let manifest: { models: { generator: Record<string, unknown> }[] } & Record<string, unknown>;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-demo-reasoning-'));
    const file = demoConfigIn(dir, (config) => (config.benchmark.limit = ITEMS), 'demo-reasoning.yaml', 'demo-reasoning.yaml');
    result = await runCli(['run', file, '--run-id', 'reasoning', '--no-progress']);
    const runDir = join(dir, 'runs', 'reasoning');
    records = readFileSync(join(runDir, 'items.jsonl'), 'utf8').trim().split('\n').map((l) => RunItemRecordSchema.parse(JSON.parse(l)));
    manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
  }, 240_000);

  it('exits 0 with a row for closed-book, standard and every method at k = 5 and 20, each answer scored', () => {
    expect(result.stderr).not.toContain('internal error');
    expect(result.code).toBe(0);
    for (const method of ['standard', ...METHODS]) for (const k of [5, 20]) expect(result.stdout).toMatch(new RegExp(`^${method}@${k}\\s+\\d+\\.\\d\\d\\s`, 'm'));
    expect(records).toHaveLength(ITEMS * (1 + 2 * (1 + METHODS.length)));
    expect(records.filter((r) => r.score.status !== 'scored')).toEqual([]);
    // The stand-in says in the run what it is.
    expect(JSON.stringify(manifest)).toContain('offline stand-in for a reasoning model that searches');
  });

  it('counts every step of every answer: calls and retrievals as traced', () => {
    for (const r of records.filter((x) => METHODS.some((m) => x.condition.startsWith(`${m}@`)))) {
      expect(r.cost!.generationCalls).toBe(r.trace.filter((s) => s.kind === 'generate').length);
      expect(r.cost!.retrievalCalls).toBe(r.trace.filter((s) => s.kind === 'retrieve').length);
      expect(r.cost!.promptTokens).toBeGreaterThan(0);
    }
  });

  it('runs every branch: searches, the exhausted budget, the answer; the result in each protocol\'s own tags', () => {
    const notes = (condition: string) => records.filter((r) => r.condition.startsWith(`${condition}@`)).map((r) => r.methodNotes!);
    expect(notes('search-o1').every((n) => (n.searches as number) >= 1 && n.reachedMaxSearches === false)).toBe(true);
    expect(notes('search-o1-completions').some((n) => n.reachedMaxSearches === true)).toBe(true);
    expect(notes('search-o1-completions').some((n) => n.reachedMaxSearches === false)).toBe(true);
    expect(notes('search-r1').some((n) => n.reachedMaxSearches === true)).toBe(true);
    const prompts = (condition: string) => records.filter((r) => r.condition === condition).flatMap((r) => r.trace.flatMap((s) => s.messages?.map((m) => m.content) ?? []));
    expect(prompts('r1-searcher@5').some((p) => /<\|begin_of_query\|>[^<]+<\|end_of_query\|>\n<\|begin_of_documents\|>\n【资料1】/.test(p))).toBe(true);
    expect(prompts('research@5').some((p) => /<search>[^<]+<\/search>\n<result>\n【资料1】/.test(p))).toBe(true);
    expect(prompts('search-r1@5').some((p) => /<search>[^<]+<\/search>\n<information>\n【资料1】/.test(p))).toBe(true);
    // Answers come out of the answer tags.
    expect(records.filter((r) => r.condition.startsWith('search-r1@')).every((r) => !r.response!.text.includes('<answer>'))).toBe(true);
  });

  it('FLARE retrieves for low-confidence sentences only', () => {
    const flare = records.filter((r) => r.condition.startsWith('flare'));
    const triggered = flare.filter((r) => r.trace.some((s) => s.kind === 'low-confidence'));
    expect(triggered.length).toBeGreaterThan(0);
    expect(triggered.length).toBeLessThan(flare.length);
    for (const r of flare) expect(r.methodNotes!.retrievals).toBe(r.trace.filter((s) => s.kind === 'low-confidence').length);
  });
});
