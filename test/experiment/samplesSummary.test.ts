import { describe, expect, it } from 'vitest';
import { summarizeRun } from '../../src/analysis/summary.js';
import { summaryTable } from '../../src/report/table.js';
import { summaryCsv } from '../../src/report/csv.js';
import { renderReportHtml } from '../../src/report/html.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { makeRecord, scored } from './fixtures.js';

const conditions = ['closed-book', 'rag@10', 'rag@50'];
const options = { experiment: 'e', models: ['m'], conditions, baseline: 'closed-book', resamples: 400, seed: 7 };

/**
 * LongHisDoc-shaped records, 10 volumes × 4 questions, each answered 3 times per condition: a
 * question's samples disagree (the model's dice) around a level set by its volume; RAG at k=10 lifts it.
 */
function sampledRecords(samples = 3): RunItemRecord[] {
  const out: RunItemRecord[] = [];
  const lift: Record<string, number> = { 'closed-book': 0, 'rag@10': 15, 'rag@50': 5 };
  for (let v = 0; v < 10; v++) {
    for (let q = 1; q <= 4; q++) {
      const itemId = `${700 + v}_${q}`;
      for (const condition of conditions) {
        for (let s = 0; s < samples; s++) {
          const score = Math.max(0, Math.min(100, 20 + 6 * v + lift[condition]! + ((v + q + 2 * s) % 3) * 10 - 10));
          out.push(
            makeRecord({
              itemId,
              condition,
              kind: 'longhisdoc',
              benchmark: 'longhisdoc',
              key: `m|${condition}|longhisdoc:${itemId}${s ? `#${s}` : ''}`,
              sample: s,
              groups: { category: q % 2 ? 'Single Page' : 'Multi Hop' },
              score: scored(score),
            }),
          );
        }
      }
    }
  }
  return out;
}

describe('summary of a run with repeated samples', () => {
  it('reduces samples per question: n counts questions, the counts count answers', () => {
    const summary = summarizeRun(sampledRecords(), options);
    const cell = summary.cells.find((c) => c.condition === 'rag@10')!;
    expect(cell.items).toBe(40 * 3);
    expect(cell.scored).toBe(40 * 3);
    expect(cell.score.n).toBe(40);
    expect(cell.score.clusters).toBe(10);
    expect(cell.byGroup.category!['Multi Hop']!.n).toBe(20);
    const diff = summary.paired.find((d) => d.condition === 'rag@10')!;
    expect(diff.n).toBe(40);
    expect(diff.meanDiff!).toBeCloseTo(15, 10);
    expect(diff.p!).toBeLessThan(0.01);
    expect(diff.pHolm!).toBeGreaterThanOrEqual(diff.p!);
  });

  it('reports the variance split and the effective number of questions per cell', () => {
    const cell = summarizeRun(sampledRecords(), options).cells.find((c) => c.condition === 'closed-book')!;
    expect(cell.sampling).toBeDefined();
    const s = cell.sampling!;
    expect(s.reducer).toBe('mean');
    expect(s.samplesPerQuestion).toBe(3);
    // Each question's 3 samples are x−10, x, x+10 in some order: within-question variance exactly 100.
    expect(s.within).toBeCloseTo(100, 10);
    // Question means 20 + 6v (v = 0…9, 4 questions each): their variance 36 · 8.4615 = 304.6, less the
    // sampling noise a 3-sample mean still carries (100 / 3), is the between-question variance.
    expect(s.between).toBeCloseTo(36 * (330 / 39) - 100 / 3, 8);
    expect(s.samplingShare).toBeGreaterThan(0);
    expect(s.samplingShare).toBeLessThan(0.2);
    expect(s.effectiveQuestions).toBeGreaterThan(1);
    expect(s.effectiveQuestions).toBeLessThanOrEqual(40);
  });

  it('applies the configured reducer (max: best of the samples)', () => {
    const cell = summarizeRun(sampledRecords(), { ...options, reducer: 'max' as const }).cells.find((c) => c.condition === 'closed-book')!;
    const mean = summarizeRun(sampledRecords(), options).cells.find((c) => c.condition === 'closed-book')!;
    expect(cell.score.mean!).toBeGreaterThan(mean.score.mean! + 5);
    expect(cell.sampling!.reducer).toBe('max');
  });

  it('leaves a one-sample run exactly as it was (no sampling figures, same intervals)', () => {
    const one = sampledRecords(1).map((r) => {
      const { sample: _dropped, ...rest } = r;
      return rest as RunItemRecord;
    });
    const summary = summarizeRun(one, options);
    expect(summary.cells.every((c) => c.sampling === undefined)).toBe(true);
    expect(summaryCsv(summary)).not.toContain('variance_between');
    expect(summaryTable(summary)).not.toContain('n_eff');
    // Records that say sample 0 are the same as records from before samples.
    expect(summarizeRun(sampledRecords(1), options)).toEqual(summary);
  });

  it('shows the split in the terminal table, the CSV and the report', () => {
    const summary = summarizeRun(sampledRecords(), options);
    const table = summaryTable(summary);
    expect(table).toContain('var between / within (sampling share)');
    expect(table).toContain('n_eff');
    expect(table).toMatch(/repeated samples: 3 per question, reduced by their mean; CIs are two-stage bootstraps \(clusters/);
    const csv = summaryCsv(summary).split('\n');
    const header = csv[0]!.split(',');
    expect(header.slice(-6)).toEqual(['samples_per_question', 'reducer', 'variance_between', 'variance_within', 'sampling_share', 'effective_questions']);
    const row = csv.find((l) => l.startsWith('m,closed-book,closed-book,,,all,all'))!.split(',');
    expect(Number(row[header.indexOf('variance_within')])).toBeCloseTo(100, 6);
    expect(row.length).toBe(header.length);
    const html = renderReportHtml({ summary, records: sampledRecords(), manifest: { version: 0 } });
    expect(html).toContain('variance between / within questions');
    expect(html).toContain('two-stage bootstraps');
  });
});
