import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareModalities } from '../../src/analysis/modalityComparison.js';
import type { PairedCell } from '../../src/runFiles/summary.js';
import { runStatistics } from '../../src/analysis/observations.js';
import { RunSummarySchema, type RunSummary } from '../../src/runFiles/summary.js';
import { summarizeRun } from '../../src/analysis/summary.js';
import { renderReportHtml } from '../../src/report/html.js';
import { summaryTable } from '../../src/report/table.js';
import { loadRun } from '../../src/results/loadRun.js';
import { writeImageRun, type ImageRun } from '../viewer/imageRunFixture.js';

const OPTIONS = { experiment: 'x', models: ['m'], conditions: ['closed-book', 'ocr-input', 'image-input'], baseline: 'closed-book', versus: ['ocr-input'], resamples: 500, seed: 7 };

function expectCiAround(cell: PairedCell) {
  expect(cell.ciLow!).toBeLessThanOrEqual(cell.meanDiff! + 1e-9);
  expect(cell.ciHigh!).toBeGreaterThanOrEqual(cell.meanDiff! - 1e-9);
  for (const side of [cell.condition, cell.against]) {
    expect(side.ciLow!).toBeLessThanOrEqual(side.mean! + 1e-9);
    expect(side.ciHigh!).toBeGreaterThanOrEqual(side.mean! - 1e-9);
  }
}

describe('image input against OCR input, by evidence modality', () => {
  let run: ImageRun;
  let summary: RunSummary;
  beforeAll(async () => {
    run = await writeImageRun();
    summary = summarizeRun(run.records, OPTIONS);
  });
  afterAll(() => rmSync(run.root, { recursive: true, force: true }));

  it('pairs the condition that showed page images with the text-only versus condition, on the questions both scored', () => {
    expect(summary.byModality).toHaveLength(1);
    const c = summary.byModality![0]!;
    expect([c.model, c.condition, c.against]).toEqual(['m', 'image-input', 'ocr-input']);
    // q7 failed under image input: six pairs. OCR 3 of 6 right, image 5 of 6.
    expect(c.overall.n).toBe(6);
    expect(c.overall.against.mean).toBeCloseTo(50, 10);
    expect(c.overall.condition.mean).toBeCloseTo(500 / 6, 10);
    expect(c.overall.meanDiff).toBeCloseTo(200 / 6, 10);
    expectCiAround(c.overall);
  });

  it('breaks the paired difference down by evidence modality, type and answer type, each with a CI around its estimate', () => {
    const c = summary.byModality![0]!;
    const modal = c.byGroup.evidence_modal!;
    expect(Object.keys(modal)).toEqual(['layout', 'text', 'visual']);
    expect([modal.text!.n, modal.text!.against.mean, modal.text!.condition.mean, modal.text!.meanDiff]).toEqual([2, 100, 50, -50]);
    expect([modal.layout!.n, modal.layout!.meanDiff]).toEqual([1, 100]);
    expect(modal.visual!.n).toBe(3);
    expect(modal.visual!.against.mean).toBeCloseTo(100 / 3, 10);
    expect(modal.visual!.meanDiff).toBeCloseTo(200 / 3, 10);
    // Single Page: q1 q2 q4 q6 (OCR 100 100 0 100, image 100 0 100 100); Cross Pages: q3 q5 (0 0 → 100 100).
    expect(c.byGroup.category!['Single Page']!.meanDiff).toBe(0);
    expect(c.byGroup.category!['Cross Pages']!.meanDiff).toBe(100);
    // Str: q1 q3 q4 q6 (+0 +100 +100 +0); Int: q2 q5 (−100 +100).
    expect(c.byGroup.answer_type!.Str!.meanDiff).toBe(50);
    expect(c.byGroup.answer_type!.Int!.meanDiff).toBe(0);
    for (const group of Object.values(c.byGroup)) for (const cell of Object.values(group)) expectCiAround(cell);
    // One item, one value: the bootstrap has nothing to resample.
    expect([modal.layout!.ciLow, modal.layout!.ciHigh]).toEqual([100, 100]);
  });

  it('decomposes the difference into helped, hurt and unchanged against the OCR condition, adding up to Δ', () => {
    const d = summary.byModality![0]!.decomposition;
    expect(d.baseline).toBe('ocr-input');
    expect([d.helped.n, d.hurt.n, d.unchanged.n, d.n]).toEqual([3, 1, 2, 6]);
    expect(d.helped.contribution).toBeCloseTo(50, 10);
    expect(d.hurt.contribution).toBeCloseTo(-100 / 6, 10);
    expect(d.helped.contribution + d.hurt.contribution + d.unchanged.contribution).toBeCloseTo(d.meanDiff!, 10);
    expect(d.meanDiff).toBeCloseTo(summary.byModality![0]!.overall.meanDiff!, 10);
  });

  it('takes paired differences against every versus condition beside the baseline', () => {
    expect(summary.versusConditions).toEqual(['ocr-input']);
    const vs = summary.versus!.find((p) => p.condition === 'image-input')!;
    expect([vs.baseline, vs.n]).toEqual(['ocr-input', 6]);
    expect(vs.meanDiff).toBeCloseTo(200 / 6, 10);
    // The baseline's differences are what they were: against closed-book (all 0), salt unchanged.
    expect(summary.paired.find((p) => p.condition === 'ocr-input')!.meanDiff).toBeCloseTo(400 / 7, 10);
    expect(summary.versus!.some((p) => p.condition === 'ocr-input')).toBe(false);
  });

  it('is part of summary.json and recomputed from items.jsonl alone (the results API gives the same block)', async () => {
    expect(RunSummarySchema.parse(JSON.parse(JSON.stringify(summary))).byModality).toEqual(summary.byModality);
    const loaded = await loadRun(run.runDir);
    expect(loaded.summary.byModality).toEqual(summarizeRun(loaded.records, { ...OPTIONS, resamples: 200, seed: loaded.config.seed }).byModality);
    expect(loaded.summary.byModality![0]!.overall.meanDiff).toBeCloseTo(200 / 6, 10);
  });

  it('shows in report.html as a section with the Table 3 shape, the paired differences and the decomposition', () => {
    const html = renderReportHtml({ summary, records: run.records, manifest: { version: 0 } });
    expect(html).toContain('<h2 id="image-vs-ocr">Image input against OCR input, by evidence modality</h2>');
    const section = html.slice(html.indexOf('id="image-vs-ocr"'), html.indexOf('<h2', html.indexOf('id="image-vs-ocr"') + 10));
    expect(section).toContain('<th colspan="3">evidence modality</th>');
    expect(section).toMatch(/image-input − ocr-input<\/td><td><span class="pos">\+33\.33<\/span>/);
    expect(section).toMatch(/<span class="neg">-50\.00<\/span> <span class="ci">\[-?[\d.]+, -?[\d.]+\] n=2<\/span>/);
    expect(section).toContain('<td>3 <span class="ci">(+50.00)</span></td><td>1 <span class="ci">(-16.67)</span></td>');
    expect(html).toContain('<th>Δ vs ocr-input [95% CI]</th>');
  });

  it('prints a line per pair in the terminal table, and a Δ column per versus condition', () => {
    const text = summaryTable(summary);
    expect(text).toContain('Δ vs ocr-input [95% CI]');
    expect(text).toMatch(/image-input − ocr-input: \+33\.33 \[.*\] \(n=6\); by evidence modality: layout \+100\.00 .*text -50\.00 .*visual \+66\.67 .*helped 3, hurt 1, unchanged 2/);
  });

  it('adds nothing to a run without an image condition, nor without a versus condition', async () => {
    const textOnly = await writeImageRun({ withImages: false });
    try {
      const plain = summarizeRun(textOnly.records, { ...OPTIONS, conditions: ['closed-book', 'ocr-input'] });
      expect(plain.byModality).toBeUndefined();
      expect(renderReportHtml({ summary: plain, records: textOnly.records, manifest: { version: 0 } })).not.toContain('image-vs-ocr');
    } finally {
      rmSync(textOnly.root, { recursive: true, force: true });
    }
    const noVersus = summarizeRun(run.records, { ...OPTIONS, versus: [] });
    expect(noVersus.byModality).toBeUndefined();
    expect(noVersus.versus).toBeUndefined();
    expect(summaryTable(noVersus)).not.toContain('Δ vs ocr-input');
    // An image condition named as versus is no OCR reference.
    expect(compareModalities(run.records, { ...OPTIONS, versus: ['image-input'] }, runStatistics(run.records, OPTIONS))).toEqual([]);
  });
});
