import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig, validateExperimentConfig } from '../../src/config/load.js';
import { estimateRun } from '../../src/app/dryRun.js';
import type { RunPlan } from '../../src/runFiles/plan.js';
import { planTable } from '../../src/report/planTable.js';
import { planVsActualHtml } from '../../src/report/planVsActual.js';
import { RunItemRecordSchema, type RunItemRecord } from '../../src/runFiles/itemRecord.js';
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

  it('with --estimate-from an earlier run, its means come as a separate, labelled estimate beside the bounds', async () => {
    const estimated = await estimateRun(await loadExperimentConfig(file), { estimateFrom: join(dir, 'runs', 'real') });
    const ircot = estimated.cells.find((c) => c.condition === 'ircot@20')!;
    const actual = records.filter((r) => r.condition === 'ircot@20').reduce((n, r) => n + r.cost!.generationCalls, 0);
    expect(ircot.basis).toBe('bounds');
    expect(ircot.generationCalls).toEqual(plan.cells.find((c) => c.condition === 'ircot@20')!.generationCalls);
    expect(ircot.estimate).toMatchObject({ from: join(dir, 'runs', 'real'), generationCalls: actual });
    const table = planTable(estimated);
    expect(table).toMatch(/estimate: calls \/ prompt \/ completion$/m);
    expect(table).toContain('(--estimate-from) times the answers: an estimate, not a bound');
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

  it('writes the plan into the run directory at the start of the run (plan.json), in the documented shape', () => {
    const written = JSON.parse(readFileSync(join(dir, 'runs', 'real', 'plan.json'), 'utf8'));
    const range = { min: expect.any(Number), max: expect.any(Number) };
    // Methods that re-read an earlier output: no maxTokens on the stand-in, so nothing bounds their prompts.
    const dependent = (condition: string) => ['refine-abstractive', 'ircot', 'self-ask', 'sure'].some((name) => condition.startsWith(`${name}@`));
    expect(written).toMatchObject({ experiment: 'demo-methods', plannedAt: expect.any(String), total: { answers: 6 * plan.cells.length } });
    // Made at the start of the run, before its first answer.
    const manifest = JSON.parse(readFileSync(join(dir, 'runs', 'real', 'manifest.json'), 'utf8'));
    expect(Date.parse(written.plannedAt)).toBeGreaterThanOrEqual(Date.parse(manifest.startedAt));
    expect(Date.parse(written.plannedAt)).toBeLessThanOrEqual(Date.parse(manifest.finishedAt));
    expect(written.cells.map((c: { condition: string }) => c.condition)).toEqual(plan.cells.map((c) => c.condition));
    for (const cell of written.cells) {
      expect(cell).toMatchObject({ model: 'extractive-baseline', answers: 6, generationCalls: range, judgeCalls: 0, cachedCalls: 0, price: null });
      expect(cell.promptTokens).toEqual(dependent(cell.condition) ? { min: expect.any(Number), max: null } : range);
      // No maxTokens on the stand-in: nothing bounds completion tokens.
      expect(cell.completionTokens).toEqual({ min: 0, max: null });
    }
    // The same plan as the dry run's.
    expect(written.cells).toEqual(plan.cells);
    for (const condition of SINGLE_SHOT) {
      const cell = written.cells.find((c: { condition: string }) => c.condition === condition)!;
      const actual = records.filter((r) => r.condition === condition);
      const calls = actual.reduce((n, r) => n + r.cost!.generationCalls, 0);
      const tokens = actual.reduce((n, r) => n + r.cost!.promptTokens, 0);
      expect(cell.generationCalls).toEqual({ min: calls, max: calls });
      expect(cell.promptTokens.max).toBe(cell.promptTokens.min);
      expect(Math.abs(cell.promptTokens.min - tokens) / tokens).toBeLessThanOrEqual(0.01);
    }
  });

  it('the report shows plan against actual per model × condition', () => {
    const html = readFileSync(join(dir, 'runs', 'real', 'report.html'), 'utf8');
    expect(html).toContain('<h2 id="plan">Plan against actual</h2>');
    const table = html.slice(html.indexOf('<table class="plan-vs-actual">'), html.indexOf('</table>', html.indexOf('<table class="plan-vs-actual">')));
    const calls = records.filter((r) => r.condition === 'closed-book').reduce((n, r) => n + r.cost!.generationCalls, 0);
    expect(table).toContain(`<tr><td>extractive-baseline</td><td>closed-book</td><td>6 / 6</td><td>${calls}</td><td>${calls}</td>`);
    for (const condition of [...SINGLE_SHOT, 'ircot@20', 'sure@5']) expect(table).toContain(`<td>${condition}</td>`);
    expect(table).toContain('<tr><td>total</td>');
    // Every figure of the run falls within the bounds its plan claims: nothing is marked.
    expect(table).not.toContain('outside the plan');
    // An exact cell whose answers spent more than planned is marked.
    const written: RunPlan = JSON.parse(readFileSync(join(dir, 'runs', 'real', 'plan.json'), 'utf8'));
    const off = { ...written, cells: written.cells.map((c) => (c.condition === 'standard@5' ? { ...c, promptTokens: { min: c.promptTokens.min * 0.9, max: c.promptTokens.min * 0.9 } } : c)) };
    const marked = planVsActualHtml(off, records);
    expect(marked.match(/outside the plan/g)).toHaveLength(1);
    expect(marked).toMatch(/<td>standard@5<\/td>.*title="outside the plan"/);
    expect(planVsActualHtml(undefined, records)).toBe('');
    // Priced: the plan's price (the batch price for a batch model) beside the recorded one.
    const priced = { ...written, cells: written.cells.map((c) => ({ ...c, price: { min: 0.01, max: 0.01 }, ...(c.condition === 'closed-book' ? { batchPrice: { min: 0.005, max: 0.005 } } : {}) })) };
    const paid = records.map((r) => ({ ...r, cost: { ...r.cost!, price: 0.01 / 6 } }));
    const pricedHtml = planVsActualHtml(priced, paid);
    expect(pricedHtml).toContain('<th>price: plan</th><th>actual</th>');
    expect(pricedHtml).toMatch(/<td>standard@5<\/td>.*<td>0\.0100<\/td><td>0\.0100<\/td><td>exact<\/td><\/tr>/);
    // Recorded at the live rate against a batch price: above the plan, marked.
    expect(pricedHtml).toMatch(/<td>closed-book<\/td>.*<td>0\.0050<\/td><td class="neg" title="outside the plan">0\.0100<\/td>/);
  });

  it('a resumed run keeps the plan made before its first answer', async () => {
    const partial = join(dir, 'runs', 'partial');
    cpSync(join(dir, 'runs', 'real'), partial, { recursive: true });
    const lines = readFileSync(join(partial, 'items.jsonl'), 'utf8').trim().split('\n');
    writeFileSync(join(partial, 'items.jsonl'), lines.slice(0, Math.floor(lines.length / 2)).join('\n') + '\n');
    const before = readFileSync(join(partial, 'plan.json'), 'utf8');
    const resumed = await runCli(['run', '--resume', partial, '--no-progress', '--quiet']);
    expect(resumed.code).toBe(0);
    expect(readFileSync(join(partial, 'plan.json'), 'utf8')).toBe(before);
    expect(readFileSync(join(partial, 'report.html'), 'utf8')).toContain('id="plan"');
  }, 120_000);

  it('a run from before plans gets none on resume, and its report has no plan section', async () => {
    const old = join(dir, 'runs', 'old');
    cpSync(join(dir, 'runs', 'real'), old, { recursive: true });
    rmSync(join(old, 'plan.json'));
    const resumed = await runCli(['run', '--resume', old, '--no-progress', '--quiet']);
    expect(resumed.code).toBe(0);
    expect(existsSync(join(old, 'plan.json'))).toBe(false);
    const report = await runCli(['report', old, '--quiet']);
    expect(report.code).toBe(0);
    const html = readFileSync(join(old, 'report.html'), 'utf8');
    expect(html).not.toContain('Plan against actual');
    expect(html).toContain('<h2 id="conditions">Conditions</h2>');
  }, 120_000);

  it('prices a model with batch: true at its batch rate too (price × price.batchDiscount)', async () => {
    const where = mkdtempSync(join(tmpdir(), 'hisrag-dry-run-batch-'));
    // No endpoint: the plan calls no model.
    const file = endpointExperimentConfig(where, 'http://127.0.0.1:9/v1', { retries: 1, retryBaseMs: 1 }, { strategies: ['closed-book', 'rag'] });
    const config = parse(readFileSync(file, 'utf8'));
    const live = { ...config.models[0], label: 'live', price: { inputPerMillion: 2, outputPerMillion: 8 } };
    const batched = { ...config.models[0], label: 'batched', batch: true, cache: join(where, 'responses.sqlite'), maxTokens: 100, price: { inputPerMillion: 2, outputPerMillion: 8 } };
    const cheaper = { ...batched, label: 'cheaper', price: { inputPerMillion: 2, outputPerMillion: 8, batchDiscount: 0.25 } };
    config.models = [live, batched, cheaper];
    writeFileSync(file, stringify(config));
    const planned = await estimateRun(await loadExperimentConfig(file));
    const cell = (model: string) => planned.cells.find((c) => c.model === model && c.condition === 'rag@10')!;
    expect(cell('live').batchPrice).toBeUndefined();
    const price = cell('batched').price!;
    expect(price.max).toBeGreaterThan(price.min);
    expect(cell('batched').batchPrice!.min).toBeCloseTo(price.min * 0.5, 12);
    expect(cell('batched').batchPrice!.max).toBeCloseTo(price.max! * 0.5, 12);
    expect(cell('cheaper').batchPrice!.max).toBeCloseTo(cell('cheaper').price!.max! * 0.25, 12);
    // The total: batch models at their batch rate, the others live.
    const expected = planned.cells.reduce((n, c) => n + (c.batchPrice ?? c.price!).min, 0);
    expect(planned.total.batchPrice!.min).toBeCloseTo(expected, 12);
    expect(planned.total.price!.min).toBeGreaterThan(planned.total.batchPrice!.min);
    // batchDiscount is a share of the live price, in (0, 1].
    for (const bad of [0, 1.5]) {
      const wrong = { ...config, models: [{ ...batched, price: { inputPerMillion: 2, outputPerMillion: 8, batchDiscount: bad } }] };
      expect(() => validateExperimentConfig(wrong, 'batch.yaml'), String(bad)).toThrow(/models\[0\]\.price\.batchDiscount/);
    }
    const table = planTable(planned);
    expect(table).toMatch(/^model\s+condition\s+.*\s+price\s+batch price\s+basis$/m);
    expect(table).toContain('batch price: models with batch: true');
  }, 120_000);
});
