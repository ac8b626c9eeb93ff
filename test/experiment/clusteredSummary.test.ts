import { describe, expect, it } from 'vitest';
import { summarizeRun } from '../../src/analysis/summary.js';
import { summaryTable } from '../../src/report/table.js';
import { summaryCsv } from '../../src/report/csv.js';
import { renderReportHtml } from '../../src/report/html.js';
import { ConfigError } from '../../src/errors.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { makeRecord, scored } from './fixtures.js';

const conditions = ['closed-book', 'rag@10', 'rag@20', 'rag@50'];
const options = { experiment: 'e', models: ['m'], conditions, baseline: 'closed-book', resamples: 500, seed: 7 };

/**
 * LongHisDoc-shaped records: 12 volumes × 5 questions (item ids `<doc>_<n>`, as LongHisDoc's); a
 * volume's questions score alike, and RAG helps most at k=20.
 */
function longHisDocRecords(): RunItemRecord[] {
  const out: RunItemRecord[] = [];
  const lift: Record<string, number> = { 'closed-book': 0, 'rag@10': 6, 'rag@20': 10, 'rag@50': 4 };
  for (let v = 0; v < 12; v++) {
    for (let q = 1; q <= 5; q++) {
      const itemId = `${900 + v}_${q}`;
      for (const condition of conditions) {
        const score = Math.min(100, 20 + 5 * v + (q % 2) * 4 + lift[condition]! + ((v * 7 + q) % 3) * (condition === 'closed-book' ? 0 : 2));
        out.push(makeRecord({ itemId, condition, kind: 'longhisdoc', benchmark: 'longhisdoc', key: `m|${condition}|longhisdoc:${itemId}`, groups: { category: q % 2 ? 'Single Page' : 'Multi Hop' }, score: scored(score) }));
      }
    }
  }
  return out;
}

describe('clustered summary', () => {
  it('clusters LongHisDoc runs by volume by default, with the design effect beside each interval', () => {
    const summary = summarizeRun(longHisDocRecords(), options);
    expect(summary.cluster).toBe('doc_id');
    const cell = summary.cells.find((c) => c.condition === 'rag@20')!;
    expect(cell.score.clusters).toBe(12);
    expect(cell.score.designEffect!).toBeGreaterThan(2);
    expect(cell.byGroup.category!['Single Page']!.clusters).toBe(12);
    const diff = summary.paired.find((d) => d.condition === 'rag@20')!;
    expect(diff.clusters).toBe(12);
    expect(diff.designEffect).not.toBeUndefined();
  });

  it('gives wider intervals over volumes than over questions on the same records', () => {
    const clustered = summarizeRun(longHisDocRecords(), options).cells.find((c) => c.condition === 'closed-book')!.score;
    const plain = summarizeRun(longHisDocRecords(), { ...options, cluster: 'none' }).cells.find((c) => c.condition === 'closed-book')!.score;
    expect(plain.clusters).toBeUndefined();
    expect(clustered.ciHigh! - clustered.ciLow!).toBeGreaterThan(1.3 * (plain.ciHigh! - plain.ciLow!));
  });

  it('tests every difference against the baseline and adjusts over the named family', () => {
    const summary = summarizeRun(longHisDocRecords(), options);
    expect(summary.families![0]).toEqual({ name: '3 differences vs closed-book (conditions)', reference: 'closed-book', size: 3 });
    // Then the depth steps (rag@20 − rag@10, rag@50 − rag@20), a family of their own.
    expect(summary.families!.slice(1)).toEqual([expect.objectContaining({ kind: 'depth', size: 2 })]);
    for (const d of summary.paired) {
      expect(d.p!).toBeGreaterThan(0);
      expect(d.pHolm!).toBeGreaterThanOrEqual(d.p!);
      expect(d.pBH!).toBeGreaterThanOrEqual(d.p!);
      expect(d.pHolm!).toBeGreaterThanOrEqual(d.pBH!);
      expect(d.family).toBe(summary.families![0]!.name);
    }
    // 12 volumes, all lifted: the exact-enough sign-flip p is tiny (2/4096 at 12 clusters).
    expect(summary.paired.find((d) => d.condition === 'rag@20')!.p).toBeCloseTo(2 / 4096, 10);
  });

  it('reports the depth curve: slope over ln k, best k with its probability, deepest − best', () => {
    const curve = summarizeRun(longHisDocRecords(), options).depthCurves![0]!;
    expect(curve.depths).toEqual([10, 20, 50]);
    expect(curve.conditions).toEqual(['rag@10', 'rag@20', 'rag@50']);
    expect(curve.bestK).toBe(20);
    expect(curve.probabilityBest[1]!).toBeGreaterThan(0.9);
    expect(curve.deepestMinusBest.estimate).toBeCloseTo(-6, 10);
    expect(curve.deepestBelowBest).toBe(true);
    expect(curve.clusters).toBe(12);
  });

  it('shows them in the terminal table, the CSV and the report', () => {
    const summary = summarizeRun(longHisDocRecords(), options);
    const table = summaryTable(summary);
    expect(table).toContain('deff');
    expect(table).toContain('p (Holm, BH)');
    expect(table).toContain('Holm and BH adjusted over the family: 3 differences vs closed-book');
    expect(table).toMatch(/rag·hnsw: slope [-+]\d+\.\d\d \[.*\]; best k=20 \(P\(best\) 10:\d\.\d\d 20:\d\.\d\d 50:\d\.\d\d\)/);
    const csv = summaryCsv(summary).split('\n');
    const header = csv[0]!.split(',');
    const row = csv.find((line) => line.startsWith('m,rag@20,'))!.split(',');
    expect(Number(row[header.indexOf('p_holm')])).toBeGreaterThan(0);
    expect(Number(row[header.indexOf('design_effect')])).toBeGreaterThan(2);
    const html = renderReportHtml({ summary, records: longHisDocRecords(), manifest: { version: 0 } });
    expect(html).toContain('point_mark_marks"');
    expect(html).toContain('P(best) per k');
  });

  it('prints no "deepest − best" difference when the deepest k is the best', () => {
    const summary = summarizeRun(longHisDocRecords(), options);
    const curve = summary.depthCurves![0]!;
    const deepestBest = { ...summary, depthCurves: [{ ...curve, bestK: 50, probabilityBest: [0, 0.1, 0.9], deepestMinusBest: { estimate: 0, ciLow: 0, ciHigh: 0 }, deepestBelowBest: false }] };
    const table = summaryTable(deepestBest);
    expect(table).toMatch(/best k=50 \(P\(best\) 10:0\.00 20:0\.10 50:0\.90\); the deepest is best \(n=/);
    expect(table).not.toContain('k=50 − k=50');
    expect(summaryTable(summary)).toMatch(/best k=20 .*; k=50 − k=20: -6\.00 \[.*\], deepest below best/);
  });

  it('leaves runs without clusters (ProHist) on the plain bootstrap', () => {
    const records = longHisDocRecords().map((r) => ({ ...r, kind: 'rubric' }));
    const summary = summarizeRun(records, options);
    expect(summary.cluster).toBeNull();
    expect(summary.cells[0]!.score.designEffect).toBeUndefined();
    expect(summaryTable(summary)).not.toContain('deff');
  });

  it('clusters over a group field when scoring.cluster names one', () => {
    const summary = summarizeRun(longHisDocRecords(), { ...options, cluster: 'category' });
    expect(summary.cells[0]!.score.clusters).toBe(2);
  });

  it('refuses a cluster field no record carries, naming the setting and the fields there are', () => {
    expect(() => summarizeRun(longHisDocRecords(), { ...options, cluster: 'dynasty' })).toThrow(ConfigError);
    expect(() => summarizeRun(longHisDocRecords(), { ...options, cluster: 'dynasty' })).toThrow(/scoring\.cluster: no record carries "dynasty" \(the records' group fields: category/);
  });
});
