import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type RunSummary } from '../../src/runFiles/summary.js';
import { SummaryFileSchema } from '../../src/runFiles/summaryFile.js';
import { RunItemRecordSchema } from '../../src/runFiles/itemRecord.js';
import { multiIndexDemoConfigIn } from '../helpers/demoConfig.js';
import { runCli, type CliResult } from '../helpers/runCli.js';

// issue 33's first Done-when bullet: a demo with `samples: 3` at a sampling stand-in prints clustered
// intervals with their design effect, adjusted p-values, the variance split, and per method the
// slope over ln k and the best k with its probability.
describe('experiments/demo-samples.yaml: 3 samples per question at the sampling stand-in', () => {
  let dir: string;
  let result: CliResult;
  let summary: RunSummary;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-demo-samples-'));
    const { config } = multiIndexDemoConfigIn(dir, 'demo-samples.yaml');
    const file = join(dir, 'samples.yaml');
    writeFileSync(file, stringify(config));
    result = await runCli(['run', file, '--run-id', 'samples', '--no-progress']);
    summary = SummaryFileSchema.parse(JSON.parse(readFileSync(join(dir, 'runs', 'samples', 'summary.json'), 'utf8')));
  }, 240_000);

  it('announces the sampling stand-in and answers every question × condition 3 times', () => {
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('20 questions × 7 conditions × 1 models × 3 samples = 420 answers');
    expect(result.stdout).toMatch(/sampling stand-in: at temperature 1\.5 each answer ranks the context sentences by overlap plus Gumbel noise seeded by \(seed 7, sample index, prompt\)/);
    const records = readFileSync(join(dir, 'runs', 'samples', 'items.jsonl'), 'utf8').trim().split('\n').map((l) => RunItemRecordSchema.parse(JSON.parse(l)));
    expect(records).toHaveLength(420);
    expect(new Set(records.map((r) => r.sample))).toEqual(new Set([0, 1, 2]));
    // The stand-in's samples really differ on some questions (a RAG condition's answers).
    const answers = new Map<string, Set<string>>();
    for (const r of records) (answers.get(`${r.condition}|${r.itemId}`) ?? answers.set(`${r.condition}|${r.itemId}`, new Set()).get(`${r.condition}|${r.itemId}`)!).add(r.response!.text);
    expect([...answers.values()].some((set) => set.size > 1)).toBe(true);
  });

  it('prints two-stage clustered intervals with deff, p (Holm, BH), the variance split and n_eff', () => {
    expect(result.stdout).toMatch(/condition\s+mean accuracy \(0–100\)\s+95% CI\s+deff\s+Δ vs closed-book \[95% CI\]\s+p \(Holm, BH\)\s+var between \/ within \(sampling share\)\s+n_eff/);
    expect(result.stdout).toMatch(/^dense\/rag@10\s+[\d.]+\s+\[[\d.]+, [\d.]+\]\s+[\d.]+ \/ [\d.–]+\s+[-+][\d.]+ \[[-\d.]+, [-\d.]+\]\s+[\d.<]+ \([\d.<]+, [\d.<]+\)\s+[\d.]+ \/ [\d.]+ \(\d+%\)\s+[\d.]+/m);
    expect(result.stdout).toContain('repeated samples: 3 per question, reduced by their mean; CIs are two-stage bootstraps (clusters, then samples within a question)');
    expect(result.stdout).toContain('Holm and BH adjusted over the family: 6 differences vs closed-book (conditions)');
    for (const cell of summary.cells) {
      expect(cell.sampling!.samplesPerQuestion).toBe(3);
      expect(cell.score.n).toBe(20);
      expect(cell.score.clusters).toBe(3);
    }
    expect(summary.cells.some((c) => c.sampling!.within > 0)).toBe(true);
  });

  it('the viewer\'s Compare counts each question once: its samples reduced, the two-stage CI', async () => {
    const { startViewer } = await import('../../src/viewer/server.js');
    const viewer = await startViewer([join(dir, 'runs')], { cacheDir: join(dir, 'view-cache') });
    try {
      const ref = (condition: string) => ({ run: 'samples', model: summary.cells[0]!.model, condition });
      const { compareQueryToParams } = await import('../../src/viewer/api.js');
      const response = await fetch(new URL(`api/compare?${compareQueryToParams({ a: ref('closed-book'), b: ref('dense/rag@10') }).toString()}`, viewer.url));
      expect(response.status).toBe(200);
      const compare = (await response.json()) as { n: number; meanDiff: number; ciLow: number; ciHigh: number; samples: unknown; items: { total: number } };
      expect(compare.n).toBe(20);
      expect(compare.items.total).toBe(20);
      expect(compare.samples).toEqual({ a: 3, b: 3, reducer: 'mean' });
      const cell = (condition: string) => summary.cells.find((c) => c.condition === condition)!;
      // Every question has its 3 samples on both sides: the mean of the questions' reduced differences is the difference of the means.
      expect(compare.meanDiff).toBeCloseTo(cell('dense/rag@10').score.mean! - cell('closed-book').score.mean!, 9);
      expect(compare.ciLow).toBeLessThanOrEqual(compare.meanDiff);
      expect(compare.ciHigh).toBeGreaterThanOrEqual(compare.meanDiff);
    } finally {
      await viewer.close();
    }
  });

  it('prints per method the slope over ln k and the best k with its probability', () => {
    expect(result.stdout).toMatch(/^ {2}rag·dense: slope [-+][\d.]+ \[[-\d.]+, [-\d.]+\]; best k=\d+ \(P\(best\) 1:[\d.]+ 3:[\d.]+ 10:[\d.]+\)/m);
    expect(result.stdout).toMatch(/^ {2}rag·bm25: slope /m);
    expect(summary.depthCurves).toHaveLength(2);
  });
});
