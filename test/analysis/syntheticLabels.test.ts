import { describe, expect, it } from 'vitest';
import { checkJudge, judgeCheckSummary } from '../../src/analysis/judgeCheck.js';
import { summarizeRun } from '../../src/analysis/summary.js';
import { judgeCheckTables } from '../../src/report/table.js';
import { RunSummarySchema } from '../../src/runFiles/summary.js';
import type { AnswerLabel } from '../../src/runFiles/labels.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { makeRecord, scored } from '../experiment/fixtures.js';

/**
 * Three questions under closed-book and rag, the judge scoring every answer 50. A person (zhang)
 * labels all six answers: closed 40, 50, 60 and rag 50, 58, 70 — per-question Δ 10, 8, 10, so the
 * labels-only Δ is 28/3 = +9.33. A stand-in (standin) marks the same six answers synthetically:
 * closed 40, 50, 60 and rag 40, 50, 60 — Δ 0. Pooled per answer (the mean of the two), rag would read
 * 45, 54, 65 and the Δ 5, 4, 5 → +4.67: the figure, which must never be reported.
 */
const QUESTIONS = ['q1', 'q2', 'q3'];
const PERSON = { closed: [40, 50, 60], rag: [50, 58, 70] };
const STANDIN = { closed: [40, 50, 60], rag: [40, 50, 60] };

const records: RunItemRecord[] = QUESTIONS.flatMap((q) => ['closed', 'rag'].map((condition) => makeRecord({ itemId: q, condition, score: scored(50) })));

function labelsOf(annotator: string, scores: { closed: number[]; rag: number[] }, synthetic: boolean): AnswerLabel[] {
  return QUESTIONS.flatMap((q, i) =>
    (['closed', 'rag'] as const).map((condition) => ({
      version: 1 as const,
      key: `m|${condition}|b:${q}`,
      itemKey: `b:${q}`,
      model: 'm',
      condition,
      sample: 0,
      annotator,
      score: scores[condition][i]!,
      at: '2026-01-01T00:00:00Z',
      source: 'import:t.jsonl',
      ...(synthetic ? { synthetic: true } : {}),
    })),
  );
}

const person = labelsOf('zhang', PERSON, false);
const standin = labelsOf('standin', STANDIN, true);
const options = { baseline: 'closed', resamples: 200, seed: 1 };
const labelsOnlyDelta = (labels: AnswerLabel[]) => checkJudge(records, labels, options).deltas[0]!.delta.labelsOnly.estimate;

describe('synthetic labels are never pooled with a person’s', () => {
  it('a person’s labels-only Δ is +9.33 with or without a stand-in’s synthetic labels beside them (pooled it would be +4.67)', () => {
    expect(records.every((r) => person.some((l) => l.key === r.key))).toBe(true);
    expect(labelsOnlyDelta(person)).toBeCloseTo(28 / 3, 10);
    expect(labelsOnlyDelta([...person, ...standin])).toBe(labelsOnlyDelta(person));
    expect(labelsOnlyDelta([...standin, ...person])).toBe(labelsOnlyDelta(person));
    // The corrected means rest on the person's labels alone too: rag's labels-only mean is (50 + 58 + 70) / 3.
    const rag = checkJudge(records, [...person, ...standin], options).conditions.find((c) => c.condition === 'rag')!;
    expect(rag.mean.labelsOnly.estimate).toBeCloseTo(178 / 3, 10);
    // The judge scores 50 everywhere: bias on rag = 50 − 178/3.
    expect(rag.bias.estimate).toBeCloseTo(50 - 178 / 3, 10);
  });

  it('says whose labels the figures rest on and which synthetic ones were left out, and reports the stand-in’s agreement apart', () => {
    const check = judgeCheckSummary(checkJudge(records, [...person, ...standin], options))!;
    expect(check.annotators).toEqual(['zhang']);
    expect(check.synthetic).toBe(false);
    expect(check.labelledAnswers).toBe(6);
    expect(check.syntheticLeftOut).toEqual({ annotators: ['standin'], answers: 6 });
    expect(check.agreement.map((a) => [a.annotator, a.synthetic ?? false])).toEqual([
      ['standin', true],
      ['zhang', false],
    ]);
    expect(check.annotatorAgreement).toHaveLength(1);
    expect(check.annotatorAgreement[0]!.synthetic).toBe(true);
    const text = judgeCheckTables(check);
    expect(text).toContain("Corrected figures from a person's labels: 6 answers labelled by zhang.");
    expect(text).toMatch(/Synthetic labels of standin \(6 answers\) are left out of the corrected figures/);
    expect(text).toMatch(/standin \(synthetic\)/);
    expect(text).not.toContain('SYNTHETIC LABELS');
  });

  it('where only synthetic labels exist they stand in, and every figure says SYNTHETIC', () => {
    expect(labelsOnlyDelta(standin)).toBe(0);
    const check = judgeCheckSummary(checkJudge(records, standin, options))!;
    expect(check).toMatchObject({ annotators: ['standin'], synthetic: true });
    expect(check.syntheticLeftOut).toBeUndefined();
    expect(judgeCheckTables(check)).toMatch(/^SYNTHETIC LABELS: the corrected figures rest on 6 answers labelled by standin/);
  });

  it('one annotator name with both kinds of labels is two raters, never one', () => {
    const mixed = [...person.slice(0, 3), ...labelsOf('zhang', STANDIN, true).slice(3)];
    const check = checkJudge(records, mixed, options);
    expect(check.agreement.map((a) => [a.annotator, a.answers, a.synthetic ?? false])).toEqual([
      ['zhang', 3, false],
      ['zhang', 3, true],
    ]);
    // The corrected figures use the person's three labels only (q1 both sides, q2 closed).
    expect(check.labelledAnswers).toBe(3);
  });

  it('summary.json keeps the separation (schema-valid after a JSON round trip)', () => {
    const summary = summarizeRun(records, { experiment: 'e', models: ['m'], conditions: ['closed', 'rag'], baseline: 'closed', resamples: 200, seed: 1, labels: [...person, ...standin] });
    const read = RunSummarySchema.parse(JSON.parse(JSON.stringify(summary)));
    expect(read.judgeCheck!.differences[0]!.labelsOnly.estimate).toBeCloseTo(28 / 3, 10);
    expect(read.judgeCheck!.syntheticLeftOut).toEqual({ annotators: ['standin'], answers: 6 });
  });
});
