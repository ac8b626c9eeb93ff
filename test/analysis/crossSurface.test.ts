import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { PairedDifference, RunSummary } from '../../src/runFiles/summary.js';
import { parseRunSummary } from '../../src/runFiles/summaryFile.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { summarizeRun } from '../../src/analysis/summary.js';
import { loadRun } from '../../src/results/loadRun.js';
import { tidyRows } from '../../src/results/tidyRows.js';
import { pairedDifferences } from '../../src/results/groupMeans.js';
import { multiIndexDemoConfigIn } from '../helpers/demoConfig.js';
import { runCli, type CliResult } from '../helpers/runCli.js';
import { makeRecord, scored } from '../experiment/fixtures.js';
import { mulberry32 } from '../../src/models/fixture/seededRandom.js';

// issue 40, "One number, everywhere": one comparison of a clustered run with repeated samples shows
// the same interval, p, Holm- and BH-adjusted p in summary.json, the terminal table, report.html,
// `hisrag compare --json`, the viewer's run and compare responses and the library API.
const CONDITION = 'dense/rag@3';
const BASELINE = 'closed-book';

const two = (x: number) => x.toFixed(2);
const pText = (p: number) => (p < 0.001 ? '<0.001' : p.toFixed(3));
const signed = (x: number) => `${x >= 0 ? '+' : ''}${two(x)}`;
const figures = (d: { ciLow: number | null; ciHigh: number | null; p?: number | null; pHolm?: number | null; pBH?: number | null }) => [d.ciLow, d.ciHigh, d.p, d.pHolm, d.pBH];

describe('one comparison, every surface (experiments/demo-samples.yaml: 3 volumes, 20 questions × 3 samples)', () => {
  let dir: string;
  let runDir: string;
  let result: CliResult;
  let summary: RunSummary;
  let d: PairedDifference;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-cross-surface-'));
    const { config } = multiIndexDemoConfigIn(dir, 'demo-samples.yaml');
    const file = join(dir, 'samples.yaml');
    writeFileSync(file, stringify(config));
    result = await runCli(['run', file, '--run-id', 'samples', '--no-progress']);
    runDir = join(dir, 'runs', 'samples');
    summary = parseRunSummary(join(runDir, 'summary.json'), readFileSync(join(runDir, 'summary.json'), 'utf8'));
    d = summary.paired.find((p) => p.condition === CONDITION && p.baseline === BASELINE)!;
  }, 300_000);

  it('summary.json has the comparison, clustered and two-stage, with p and both adjustments', () => {
    expect(result.code, result.stderr).toBe(0);
    expect(summary.cluster).toBe('doc_id');
    expect(d).toMatchObject({ n: 20, clusters: 3 });
    for (const x of figures(d)) expect(typeof x).toBe('number');
  });

  it('the terminal table prints the same interval, p, Holm and BH', () => {
    const line = result.stdout.split('\n').find((l) => l.startsWith(`${CONDITION} `))!;
    expect(line).toContain(`${signed(d.meanDiff!)} [${two(d.ciLow!)}, ${two(d.ciHigh!)}]`);
    expect(line).toContain(`${pText(d.p!)} (${pText(d.pHolm!)}, ${pText(d.pBH!)})`);
  });

  it('report.html shows the same figures', () => {
    const html = readFileSync(join(runDir, 'report.html'), 'utf8');
    const row = html.split('<tr>').find((r) => r.startsWith(`<td>${CONDITION}</td>`))!;
    expect(row).toContain(`${signed(d.meanDiff!)} <span class="ci">[${two(d.ciLow!)}, ${two(d.ciHigh!)}]</span>`);
    expect(row).toContain(`${pText(d.p!)} <span class="ci">(${pText(d.pHolm!)}, ${pText(d.pBH!)})</span>`);
  });

  it('hisrag compare --json of the run against itself (--against closed-book) gives them to the last digit', async () => {
    const compare = await runCli(['compare', runDir, runDir, '--against', BASELINE, '--json']);
    expect(compare.code, compare.stderr).toBe(0);
    const rows = JSON.parse(compare.stdout) as { condition: string; paired: { n: number; meanDiff: number; ciLow: number; ciHigh: number; p: number; pHolm: number; pBH: number } | null }[];
    const row = rows.find((r) => r.condition === CONDITION)!.paired!;
    expect(row.n).toBe(d.n);
    expect(row.meanDiff).toBe(d.meanDiff);
    expect(figures(row)).toEqual(figures(d));
    // Every difference of the summary's family, not only this one.
    for (const p of summary.paired.filter((x) => x.p != null)) expect(figures(rows.find((r) => r.condition === p.condition)!.paired!)).toEqual(figures(p));
  });

  it("the viewer's run and compare responses give them to the last digit", async () => {
    const { startViewer } = await import('../../src/viewer/server.js');
    const { compareQueryToParams } = await import('../../src/viewer/api.js');
    const viewer = await startViewer([join(dir, 'runs')], { cacheDir: join(dir, 'view-cache') });
    try {
      const get = async <T>(path: string) => {
        const response = await fetch(new URL(path, viewer.url));
        expect(response.status).toBe(200);
        return (await response.json()) as T;
      };
      const detail = await get<{ cells: { condition: string; paired: PairedDifference | null }[] }>('api/runs/samples');
      const paired = detail.cells.find((c) => c.condition === CONDITION)!.paired!;
      expect(figures(paired)).toEqual(figures(d));
      const model = summary.cells[0]!.model;
      const query = compareQueryToParams({ a: { run: 'samples', model, condition: BASELINE }, b: { run: 'samples', model, condition: CONDITION } });
      const compare = await get<{ n: number; meanDiff: number; ciLow: number; ciHigh: number; p: number; pHolm: number; pBH: number }>(`api/compare?${query.toString()}`);
      expect(compare.n).toBe(d.n);
      expect(compare.meanDiff).toBe(d.meanDiff);
      expect(figures(compare)).toEqual(figures(d));
    } finally {
      await viewer.close();
    }
  });

  it('the library API (loadRun, pairedDifferences with the run’s resampling) gives them to the last digit', async () => {
    const run = await loadRun(runDir);
    expect(figures(run.summary.paired.find((p) => p.condition === CONDITION)!)).toEqual(figures(d));
    const diffs = pairedDifferences(tidyRows(run), { baseline: BASELINE, resamples: run.config.scoring.bootstrapResamples, seed: run.config.seed, reducer: run.config.scoring.reducer ?? 'mean' });
    const mine = diffs.find((x) => x.condition === CONDITION)!;
    // n counts questions (20), not answers (60).
    expect(mine.n).toBe(20);
    expect(figures(mine)).toEqual(figures(d));
  });
});

// ---- (b) an independent clustered two-stage recomputation, on data generated here ----

/** A seeded PRNG of the test's own (mulberry32), so nothing is shared with the code under test. */

/** LongHisDoc-shaped records: `volumes` × 6 questions, 3 samples each, volume difficulty shared by its questions, RAG lifting by `lift`. */
function sampledRun(seed: number, volumes: number, lift: number): RunItemRecord[] {
  const random = mulberry32(seed);
  const normal = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  const out: RunItemRecord[] = [];
  for (let v = 0; v < volumes; v++) {
    const volume = 12 * normal();
    for (let q = 1; q <= 6; q++) {
      const itemId = `${700 + v}_${q}`;
      const question = 50 + volume + 8 * normal();
      const gain = lift + 6 * normal();
      for (const condition of ['closed-book', 'rag@5']) {
        for (let sample = 0; sample < 3; sample++) {
          const score = question + (condition === 'rag@5' ? gain : 0) + 10 * normal();
          out.push(makeRecord({ itemId, condition, kind: 'longhisdoc', benchmark: 'longhisdoc', sample, key: `m|${condition}|longhisdoc:${itemId}${sample ? `#${sample}` : ''}`, score: scored(score) }));
        }
      }
    }
  }
  return out;
}

/**
 * The estimator written out plainly: per question the mean of its samples (B) minus the mean of
 * its samples (A), gathered by volume; each resample draws volumes with replacement and takes the
 * mean of their questions' differences (the first stage, which already carries the samples' noise
 * in each question's mean); the percentile interval. p: random sign flips of the volumes' sums.
 */
function independent(records: RunItemRecord[], resamples: number): { mean: number; ciLow: number; ciHigh: number; p: number } {
  const byQuestion = new Map<string, { volume: string; a: number[]; b: number[] }>();
  for (const r of records) {
    const q = byQuestion.get(r.itemId) ?? byQuestion.set(r.itemId, { volume: r.itemId.split('_')[0]!, a: [], b: [] }).get(r.itemId)!;
    (r.condition === 'rag@5' ? q.b : q.a).push(r.score.score!);
  }
  const avg = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
  const byVolume = new Map<string, number[]>();
  for (const q of byQuestion.values()) (byVolume.get(q.volume) ?? byVolume.set(q.volume, []).get(q.volume)!).push(avg(q.b) - avg(q.a));
  const volumes = [...byVolume.values()];
  const all = volumes.flat();
  const random = mulberry32(12345);
  const means: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    let n = 0;
    for (let c = 0; c < volumes.length; c++) {
      const drawn = volumes[Math.floor(random() * volumes.length)]!;
      sum += drawn.reduce((x, y) => x + y, 0);
      n += drawn.length;
    }
    means.push(sum / n);
  }
  means.sort((x, y) => x - y);
  const at = (q: number) => means[Math.round(q * (resamples - 1))]!;
  const sums = volumes.map((v) => v.reduce((x, y) => x + y, 0));
  const observed = Math.abs(sums.reduce((x, y) => x + y, 0));
  let extreme = 0;
  const flips = 20000;
  for (let f = 0; f < flips; f++) if (Math.abs(sums.reduce((t, s) => t + (random() < 0.5 ? -s : s), 0)) >= observed * (1 - 1e-12)) extreme++;
  return { mean: avg(all), ciLow: at(0.025), ciHigh: at(0.975), p: (1 + extreme) / (1 + flips) };
}

describe('the statistics module against an independent clustered two-stage recomputation', () => {
  for (const [seed, volumes, lift] of [
    [1, 40, 4],
    [29, 60, 0],
    [83, 30, 8],
  ] as const) {
    it(`agrees within bootstrap noise (data seed ${seed}: ${volumes} volumes × 6 questions × 3 samples, lift ${lift})`, () => {
      const records = sampledRun(seed, volumes, lift);
      const summary = summarizeRun(records, { experiment: 'x', models: ['m'], conditions: ['closed-book', 'rag@5'], baseline: 'closed-book', resamples: 4000, seed: 3 });
      const d = summary.paired[0]!;
      expect(summary.cluster).toBe('doc_id');
      expect(d).toMatchObject({ n: volumes * 6, clusters: volumes });
      const mine = independent(records, 20000);
      expect(d.meanDiff!).toBeCloseTo(mine.mean, 9);
      const width = mine.ciHigh - mine.ciLow;
      expect(Math.abs(d.ciLow! - mine.ciLow)).toBeLessThan(0.1 * width);
      expect(Math.abs(d.ciHigh! - mine.ciHigh)).toBeLessThan(0.1 * width);
      // p: Monte Carlo error of two sign-flip estimates (9,999 and 20,000 flips) at most ~0.015.
      expect(Math.abs(d.p! - mine.p)).toBeLessThan(Math.max(0.02, 0.25 * mine.p));
    });
  }
});
