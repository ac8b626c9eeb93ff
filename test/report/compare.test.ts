import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/app/compare.js';
import { summarizeRun } from '../../src/analysis/summary.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { makeRecord, scored } from '../experiment/fixtures.js';
import { runCli } from '../helpers/runCli.js';

const conditions = ['closed-book', 'rag@10', 'rag@50'];

/**
 * A run directory written as the runner writes one (config, items, summary): 12 LongHisDoc volumes
 * × 4 questions, `samples` answers each; `lift` adds points per condition (run B's lift of rag@10 is
 * its improvement over run A).
 */
function writeRun(dir: string, name: string, lift: Record<string, number>, samples: number, reducer?: string, firstVolume = 800, metric = 'accuracy'): string {
  const runDir = join(dir, name);
  mkdirSync(runDir, { recursive: true });
  const records: RunItemRecord[] = [];
  for (let v = 0; v < 12; v++) {
    for (let q = 1; q <= 4; q++) {
      const itemId = `${firstVolume + v}_${q}`;
      for (const condition of conditions) {
        for (let s = 0; s < samples; s++) {
          const score = Math.max(0, Math.min(100, 30 + 4 * v + (lift[condition] ?? 0) + ((v * 5 + q + s) % 3) * 5));
          records.push(makeRecord({ itemId, condition, kind: 'longhisdoc', benchmark: 'longhisdoc', key: `m|${condition}|longhisdoc:${itemId}${s ? `#${s}` : ''}`, ...(samples > 1 ? { sample: s } : {}), score: { ...scored(score), metric } }));
        }
      }
    }
  }
  const config = {
    name,
    seed: 5,
    benchmark: { name: 'longhisdoc', file: 'qa.json' },
    strategies: ['closed-book', 'rag'],
    models: [{ name: 'extractive', label: 'm' }],
    ...(samples > 1 ? { samples } : {}),
    scoring: { bootstrapResamples: 400, ...(reducer ? { reducer } : {}) },
  };
  writeFileSync(join(runDir, 'config.json'), JSON.stringify(config));
  writeFileSync(join(runDir, 'items.jsonl'), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const summary = summarizeRun(records, { experiment: name, models: ['m'], conditions, baseline: 'closed-book', resamples: 400, seed: 5 });
  writeFileSync(join(runDir, 'summary.json'), JSON.stringify(summary));
  return runDir;
}

describe('hisrag compare of runs without a shared question', () => {
  it('warns and exits 2 instead of reporting "0 differences"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-compare-disjoint-'));
    const a = writeRun(dir, 'run-a', {}, 1);
    const other = writeRun(dir, 'run-other', {}, 1, undefined, 900);
    const result = await runCli(['compare', a, other]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('share no question scored in both');
  }, 60_000);
});

describe('hisrag compare names the metric', () => {
  it('says which metric the means are on, and refuses runs scored by different metrics', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-compare-metric-'));
    const a = writeRun(dir, 'run-a', {}, 1);
    const b = writeRun(dir, 'run-b', { 'rag@10': 5 }, 1);
    const comparison = await compareRuns(a, b);
    expect(comparison.metric).toBe('accuracy');
    expect(comparison.text).toContain('scores: accuracy (0–100), LongHisDoc generalised accuracy ×100');
    const rouge = writeRun(dir, 'run-rouge', {}, 1, undefined, 800, 'rougeL');
    await expect(compareRuns(a, rouge)).rejects.toThrow(/scored by different metrics \(A: accuracy \(0–100\), B: ROUGE-L \(0–100\)\)/);
  }, 60_000);
});

describe('hisrag compare: paired tests across two runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hisrag-compare-'));
  const a = writeRun(dir, 'run-a', {}, 3);
  const b = writeRun(dir, 'run-b', { 'rag@10': 12 }, 3);

  it('tests B − A per cell on the paired questions and adjusts over the named family', async () => {
    const { rows, family, cluster } = await compareRuns(a, b);
    expect(cluster).toBe('doc_id');
    expect(family).toBe('3 differences B − A (run-b − run-a, every model × condition both runs scored)');
    const lifted = rows.find((r) => r.condition === 'rag@10')!.paired!;
    expect(lifted.n).toBe(48);
    expect(lifted.meanDiff).toBeCloseTo(12, 10);
    expect(lifted.clusters).toBe(12);
    // All 12 volumes lifted: the exact clustered sign-flip p is 2/4096.
    expect(lifted.p).toBeCloseTo(2 / 4096, 10);
    expect(lifted.pHolm).toBeCloseTo(3 * (2 / 4096), 10);
    expect(lifted.family).toBe(family);
    const same = rows.find((r) => r.condition === 'closed-book')!.paired!;
    expect(same.meanDiff).toBe(0);
    expect(same.p).toBe(1);
  });

  it('prints the paired difference, p and the adjusted p with the family', async () => {
    const out = await runCli(['compare', a, b]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('paired B − A [95% CI]');
    expect(out.stdout).toContain('p (Holm, BH)');
    expect(out.stdout).toMatch(/rag@10 .* \+12\.00 \[[\d.]+, [\d.]+\] n=48 .*<0\.001 \(0\.001, 0\.001\)/);
    expect(out.stdout).toContain('resampled and sign-flipped by cluster (doc_id)');
    expect(out.stdout).toContain('Holm and BH adjusted over the family: 3 differences B − A');
  });

  it('refuses runs that reduce samples differently', async () => {
    const c = writeRun(dir, 'run-c', {}, 3, 'max');
    await expect(compareRuns(a, c)).rejects.toThrow(/reduce repeated samples differently \(A: mean, B: max/);
  });
});
