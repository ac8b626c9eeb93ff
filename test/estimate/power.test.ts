import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planPower, type PowerDesign } from '../../src/estimate/power.js';
import { RunItemRecordSchema, type RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { minimumDetectableDifference, pairedVarianceOf } from '../../src/statistics/power.js';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { runCli, type CliResult } from '../helpers/runCli.js';

const design: PowerDesign = {
  experiment: 'grid',
  models: ['a', 'b'],
  conditions: ['closed-book', 'ocr', 'rag@10', 'rag@50'],
  baseline: 'closed-book',
  versus: ['ocr'],
  questions: 480,
  clusters: 60,
  clusterField: 'doc_id',
};

describe('planPower', () => {
  it('gives every comparison against the baseline and each versus condition, per model, with its family', () => {
    const power = planPower(design, { kind: 'assumed', sd: 40, icc: 0.1 }, { difference: 3 });
    expect(power.families).toEqual([
      { reference: 'closed-book', size: 6 },
      { reference: 'ocr', size: 6 },
    ]);
    expect(power.comparisons).toHaveLength(12);
    const c = power.comparisons[0]!;
    expect(c).toMatchObject({ model: 'a', condition: 'ocr', reference: 'closed-book', n: 480, clusters: 60 });
    expect(c.designEffect).toBeCloseTo(1 + 7 * 0.1, 10);
    expect(c.mdd).toBeCloseTo(minimumDetectableDifference(40, 480, 1.7), 10);
    expect(c.mddBonferroni).toBeCloseTo(minimumDetectableDifference(40, 480, 1.7, { alpha: 0.05 / 6 }), 10);
    expect(c.questionsNeeded).toBeGreaterThan(480);
    expect(c.questionsNeededBonferroni).toBeGreaterThan(c.questionsNeeded!);
  });

  it('uses a measured variance for the pairs the earlier run has, and says none for the others', () => {
    const variances = new Map([[`a\u0000rag@10\u0000closed-book`, { sd: 30, designEffect: 2, clusterSize: 4, n: 100, clusters: 25 }]]);
    const power = planPower(design, { kind: 'earlier-run', from: 'runs/x', variances });
    const measured = power.comparisons.find((c) => c.model === 'a' && c.condition === 'rag@10' && c.reference === 'closed-book')!;
    // ICC (2 − 1)/(4 − 1) = 1/3, carried to 8 questions per cluster: 1 + 7/3.
    expect(measured.designEffect).toBeCloseTo(1 + 7 / 3, 10);
    expect(measured.mdd).toBeCloseTo(minimumDetectableDifference(30, 480, 1 + 7 / 3), 10);
    expect(measured.measuredOn).toBe(100);
    expect(power.comparisons.filter((c) => c.mdd === null)).toHaveLength(11);
  });

  it('carries a measured σ_d to the configured samples per question: its sampling part v/n₀ becomes v/n', () => {
    // Measured at 3 samples: σ²_d = 900, of which 300/3 = 100 is sampling; the design asks 1 sample of model a, 6 of model b.
    const measured = { sd: 30, designEffect: 1, clusterSize: 1, n: 200, clusters: 200, sampling: { variance: 300, samples: 3 } };
    const variances = new Map([
      [`a\u0000rag@10\u0000closed-book`, measured],
      [`b\u0000rag@10\u0000closed-book`, measured],
    ]);
    const power = planPower({ ...design, samples: { a: 1, b: 6 } }, { kind: 'earlier-run', from: 'runs/x', variances });
    const of = (model: string) => power.comparisons.find((c) => c.model === model && c.condition === 'rag@10' && c.reference === 'closed-book')!;
    expect(of('a').sd).toBeCloseTo(Math.sqrt(800 + 300), 10);
    expect(of('b').sd).toBeCloseTo(Math.sqrt(800 + 50), 10);
    expect(of('b').mdd!).toBeLessThan(of('a').mdd!);
  });

  it('refuses bad settings naming the flag', () => {
    expect(() => planPower(design, { kind: 'assumed', sd: 40, icc: 0 }, { difference: -1 })).toThrow(/--difference/);
    expect(() => planPower(design, { kind: 'assumed', sd: 40, icc: 0 }, { alpha: 2 })).toThrow(/--alpha/);
  });
});

describe('hisrag power and hisrag run --dry-run on experiments/demo.yaml', () => {
  let dir: string;
  let file: string;
  let records: RunItemRecord[];
  let fromRun: CliResult;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-power-'));
    file = demoConfigIn(dir);
    const run = await runCli(['run', file, '--run-id', 'earlier', '--no-progress', '--quiet']);
    expect(run.code, run.stderr).toBe(0);
    records = readFileSync(join(dir, 'runs', 'earlier', 'items.jsonl'), 'utf8').trim().split('\n').map((l) => RunItemRecordSchema.parse(JSON.parse(l)));
    fromRun = await runCli(['power', file, '--estimate-from', join(dir, 'runs', 'earlier'), '--difference', '5']);
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("prints σ_d recomputed from the earlier run's items.jsonl, and its MDD", () => {
    expect(fromRun.code, fromRun.stderr).toBe(0);
    const model = records[0]!.model;
    const base = new Map(records.filter((r) => r.condition === 'closed-book' && r.score.status === 'scored').map((r) => [r.itemId, r.score.score!]));
    const conditions = [...new Set(records.map((r) => r.condition))].filter((c) => c !== 'closed-book');
    let checked = 0;
    for (const condition of conditions) {
      const diffs = records.filter((r) => r.model === model && r.condition === condition && r.score.status === 'scored' && base.has(r.itemId)).map((r) => r.score.score! - base.get(r.itemId)!);
      const v = pairedVarianceOf(diffs);
      if (!v) continue;
      const line = fromRun.stdout.split('\n').find((l) => l.startsWith(model) && l.split(/\s{2,}/)[1] === condition)!;
      expect(line, condition).toBeDefined();
      const cells = line.split(/\s{2,}/);
      expect(Number(cells[5])).toBeCloseTo(v.sd, 1);
      expect(Number(cells[7])).toBeCloseTo(minimumDetectableDifference(v.sd, base.size, 1), 1);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
    expect(fromRun.stdout).toMatch(/n for Δ 5/);
    expect(fromRun.stdout).toMatch(/comparisons vs closed-book/);
  });

  it('the dry run with --estimate-from prints the same power figures under its plan', async () => {
    const dry = await runCli(['run', '--dry-run', file, '--estimate-from', join(dir, 'runs', 'earlier')]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('no model was called');
    const table = (text: string) => text.slice(text.indexOf('power before the run')).split('\n').filter((l) => /^\S+\s{2,}\S/.test(l) && !l.startsWith('model'));
    const mdd = (lines: string[]) => lines.map((l) => l.split(/\s{2,}/).slice(0, 9).join('|'));
    expect(mdd(table(dry.stdout))).toEqual(mdd(table(fromRun.stdout)));
  }, 120_000);

  it('refuses an invalid assumption or a missing source with exit 2, naming the flag', async () => {
    const bad = await runCli(['power', file, '--sd', '-3']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--sd/);
    const none = await runCli(['power', file]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--estimate-from|--sd/);
    const assumed = await runCli(['power', file, '--sd', '40', '--icc', '0.2', '--cluster-size', '5']);
    expect(assumed.code, assumed.stderr).toBe(0);
    expect(assumed.stdout).toMatch(/design effect/);
    expect(assumed.stdout).toMatch(/\s1\.80\s/);
  }, 120_000);
});
