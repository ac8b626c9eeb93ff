import { describe, expect, it } from 'vitest';
import { summarizeRun } from '../../src/analysis/summary.js';
import { addDiagnosticsToSummary } from '../../src/diagnostics/summary.js';
import { summaryCsv } from '../../src/report/csv.js';
import { renderReportHtml } from '../../src/report/html.js';
import { summaryTable } from '../../src/report/table.js';
import { RunSummarySchema } from '../../src/runFiles/summary.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { makeRecord } from '../experiment/fixtures.js';

const conditions = ['closed-book', 'rag@5', 'rag@10'];

/** A JSONL benchmark of free-text questions scored by ROUGE-L (0–100): RAG lifts each by 3–40 points. */
function rougeRecords(): RunItemRecord[] {
  const out: RunItemRecord[] = [];
  for (let q = 0; q < 12; q++) {
    for (const condition of conditions) {
      const score = Math.min(100, 20 + 3 * q + (condition === 'closed-book' ? 0 : condition === 'rag@5' ? 3 + 3 * q : 6));
      out.push(makeRecord({ itemId: `q${q}`, condition, kind: 'reference', benchmark: 'jsonl', key: `m|${condition}|jsonl:q${q}`, score: { status: 'scored', score, scoreRaw: score, metric: 'rougeL' } }));
    }
  }
  return out;
}

const options = { experiment: 'e', models: ['m'], conditions, baseline: 'closed-book', resamples: 200, seed: 3 };

describe('every surface names the metric', () => {
  const summary = summarizeRun(rougeRecords(), options);

  it('summary.json names it with its scale', () => {
    expect(summary.metric).toEqual({ id: 'rougeL', name: 'ROUGE-L', description: 'character ROUGE-L F1 ×100 against the reference answer', scale: { min: 0, max: 100 } });
    expect(RunSummarySchema.parse(JSON.parse(JSON.stringify(summary))).metric?.name).toBe('ROUGE-L');
  });

  it('the terminal table and the CSV name it, and CSV group rows keep their columns', () => {
    expect(summaryTable(summary)).toMatch(/^condition\s+mean ROUGE-L \(0–100\)\s+95% CI/m);
    const [header, ...rows] = summaryCsv({ ...summary, cells: summary.cells.map((c) => ({ ...c, byGroup: { task: { T1: c.score } } })) }).trim().split('\n').map((line) => line.split(','));
    for (const row of rows) {
      expect(row).toHaveLength(header!.length);
      expect(row[header!.indexOf('metric')]).toBe('rougeL');
      expect(row[header!.indexOf('metric_name')]).toBe('ROUGE-L');
      expect(row[header!.indexOf('metric_scale')]).toBe('0–100');
    }
  });

  it("the report's tables and axes name it", () => {
    const html = renderReportHtml({ summary, records: rougeRecords(), manifest: { version: 0 } });
    expect(html).toContain('<th>mean ROUGE-L (0–100) [95% CI]</th>');
    expect(html).toContain('mean ROUGE-L, 0–100 (95% CI)');
    expect(html).not.toContain('mean score');
  });

  it("a ROUGE-L benchmark's diagnose uses δ on ROUGE-L's 0–100 scale, and says so", () => {
    const diagnosed = addDiagnosticsToSummary(summary, rougeRecords(), { baseline: 'closed-book', delta: null });
    const d = diagnosed.cells.find((c) => c.condition === 'rag@10')!.diagnostics!.decomposition!;
    expect(d.delta).toBe(10);
    // Every question gained 6 points: under δ 10 none counts as helped (with δ 0.1 all twelve would).
    expect(d.helped.n).toBe(0);
    expect(d.unchanged.n).toBe(12);
    expect(summaryTable(diagnosed)).toContain('why (model: m; vs closed-book, δ 10 (ROUGE-L, 0–100))');
  });
});
