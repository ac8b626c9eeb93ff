import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkJudge, judgeCheckSummary } from '../../src/analysis/judgeCheck.js';
import { summarizeRun } from '../../src/analysis/summary.js';
import { judgeCheckSectionHtml } from '../../src/report/judgeCheckSection.js';
import { judgeCheckTables, summaryTable } from '../../src/report/table.js';
import { RunSummarySchema } from '../../src/runFiles/summary.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import type { AnswerLabel } from '../../src/runFiles/labels.js';
import { readRunLabels } from '../../src/runFiles/labelFiles.js';
import { makeRecord } from '../experiment/fixtures.js';
import { runCli } from '../helpers/runCli.js';
import { writeRunDir } from '../results/runDirFixture.js';
import { mulberry32 } from '../../src/models/fixture/seededRandom.js';


/** Pearson's r of 0/1 pairs is the φ coefficient of their 2×2 table: (n11·n00 − n10·n01)/√(n1·n0·m1·m0). */
function phi(x: readonly number[], y: readonly number[]): number {
  const count = (a: number, b: number) => x.filter((v, i) => v === a && y[i] === b).length;
  const [n11, n10, n01, n00] = [count(1, 1), count(1, 0), count(0, 1), count(0, 0)];
  return (n11 * n00 - n10 * n01) / Math.sqrt((n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00));
}

/** r by the polarisation identity, (s²x + s²y − s²(x−y)) / (2·sx·sy): another route than the centred cross-products. */
function rByVariances(x: readonly number[], y: readonly number[]): number {
  const variance = (v: readonly number[]) => {
    const m = v.reduce((a, b) => a + b, 0) / v.length;
    return v.reduce((a, b) => a + (b - m) ** 2, 0) / (v.length - 1);
  };
  const vx = variance(x);
  const vy = variance(y);
  return (vx + vy - variance(x.map((v, i) => v - y[i]!))) / (2 * Math.sqrt(vx * vy));
}

const ITEMS = 5;
const QUESTIONS = 120;
const LABELLED = 60;

/**
 * 120 questions × 5 rubric items in a closed-book baseline and a RAG condition (+0.1 hit rate);
 * the judge keeps every hit and marks a missed item as hit 5% of the time on closed-book answers
 * and 40% on RAG answers. Annotator h1 marks the true hits of the first 60 questions in both
 * conditions, h2 the first 20 (one item flipped per answer on the RAG side).
 */
function biasedRun(baseline = 'closed') {
  const random = mulberry32(7);
  const records: RunItemRecord[] = [];
  const labels: AnswerLabel[] = [];
  const truth = { closed: 0, rag: 0 };
  for (let q = 0; q < QUESTIONS; q++) {
    const base = 0.2 + 0.5 * random();
    for (const condition of [baseline, 'rag@5']) {
      const p = base + (condition === 'rag@5' ? 0.1 : 0);
      const overCredit = condition === 'rag@5' ? 0.4 : 0.05;
      const hits: Record<string, 0 | 1> = {};
      const judged: Record<string, 0 | 1> = {};
      for (let i = 1; i <= ITEMS; i++) {
        const hit = random() < p ? 1 : 0;
        hits[`加分项_${i}`] = hit;
        judged[`加分项_${i}`] = hit || random() < overCredit ? 1 : 0;
      }
      const scoreOf = (v: Record<string, 0 | 1>) => (Object.values(v).reduce<number>((s, x) => s + x, 0) / ITEMS) * 100;
      truth[condition === 'rag@5' ? 'rag' : 'closed'] += scoreOf(hits) / QUESTIONS;
      const record = makeRecord({ itemId: `q${q}`, condition, groups: { task: 'T1', volume: `v${q % 12}` }, score: { status: 'scored', score: scoreOf(judged), scoreRaw: scoreOf(judged), metric: 'rubric_score', verdicts: judged } });
      records.push(record);
      const label = (annotator: string, verdicts: Record<string, 0 | 1>): AnswerLabel => ({
        version: 1, key: record.key, itemKey: `b:q${q}`, model: 'm', condition, sample: 0, annotator, verdicts, score: scoreOf(verdicts), at: '2026-01-01T00:00:00Z', source: 'import:test.jsonl', synthetic: true,
      });
      if (q < LABELLED) labels.push(label('h1', hits));
      if (q < 20) labels.push(label('h2', condition === 'rag@5' ? { ...hits, 加分项_1: hits['加分项_1'] ? 0 : 1 } : hits));
    }
  }
  return { records, labels, trueDelta: truth.rag - truth.closed };
}

const options = { baseline: 'closed', cluster: 'volume', resamples: 1000, seed: 3 };

describe('checkJudge: a judge that over-credits RAG answers, checked against labels', () => {
  const { records, labels, trueDelta } = biasedRun();
  const check = checkJudge(records, labels, options);

  it('recomputes the Pearson figures exactly from the stored verdicts and labels', () => {
    // In record-key order, rubric items in verdict-key order (docs/scoring.md).
    const h1 = labels.filter((l) => l.annotator === 'h1').sort((a, b) => (a.key < b.key ? -1 : 1));
    const byKey = new Map(records.map((r) => [r.key, r]));
    const judgeItems: number[] = [];
    const humanItems: number[] = [];
    for (const l of h1) for (const [item, v] of Object.entries(l.verdicts!).sort(([x], [y]) => (x < y ? -1 : 1))) {
      judgeItems.push(byKey.get(l.key)!.score.verdicts![item]!);
      humanItems.push(v);
    }
    const row = check.agreement.find((r) => r.annotator === 'h1')!;
    expect(row.units).toBe(LABELLED * 2 * ITEMS);
    expect(row.answers).toBe(LABELLED * 2);
    expect(row.rubricPearson!.value).toBeCloseTo(phi(judgeItems, humanItems), 12);
    expect(row.answerPearson!.value).toBeCloseTo(rByVariances(h1.map((l) => byKey.get(l.key)!.score.score!), h1.map((l) => l.score!)), 12);
    expect(row.rubricPearson!.value).toBeGreaterThan(0.5);
    expect(row.rubricPearson!.value).toBeLessThan(0.95);
    expect(row.kappa!.value).toBeLessThan(row.rubricPearson!.value + 0.2);
    expect(row.alpha!.ciLow).toBeLessThan(row.alpha!.value);
  });

  it('reports agreement between the two annotators on the answers both labelled', () => {
    expect(check.annotators).toEqual(['h1', 'h2']);
    const row = check.annotatorAgreement[0]!;
    expect([row.judge, row.annotator, row.answers, row.units]).toEqual(['h1', 'h2', 40, 200]);
    // h2 flips one item of 5 on the 20 RAG answers: 180 of 200 units agree.
    expect(row.kappa!.observed).toBeCloseTo(180 / 200, 12);
  });

  it('reports the bias per condition: large on RAG answers, small on closed-book ones', () => {
    const rag = check.conditions.find((c) => c.condition === 'rag@5')!;
    const closed = check.conditions.find((c) => c.condition === 'closed')!;
    expect(rag.bias.ciLow).toBeGreaterThan(5);
    expect(closed.bias.estimate).toBeLessThan(rag.bias.estimate / 3);
    expect(rag.mean.labelled).toBe(LABELLED);
    expect(rag.mean.n).toBe(QUESTIONS);
  });

  it('reports the judge-only and the corrected Δ: the corrected interval holds the true Δ and the one the labels imply, the judge-only one does not', () => {
    expect(check.deltas).toHaveLength(1);
    const { delta, biasDifference } = check.deltas[0]!;
    expect(delta.judgeOnly.estimate).toBeGreaterThan(trueDelta + 10);
    expect(delta.judgeOnly.ciLow).toBeGreaterThan(trueDelta);
    expect(delta.ppiPlusPlus.ciLow).toBeLessThan(trueDelta);
    expect(delta.ppiPlusPlus.ciHigh).toBeGreaterThan(trueDelta);
    expect(delta.ppiPlusPlus.ciLow).toBeLessThan(delta.labelsOnly.estimate);
    expect(delta.ppiPlusPlus.ciHigh).toBeGreaterThan(delta.labelsOnly.estimate);
    expect(biasDifference!.shareOfJudgeDelta).toBeGreaterThan(0.4);
    const text = judgeCheckTables(judgeCheckSummary(check));
    expect(text).toMatch(/SYNTHETIC LABELS/);
    expect(text).toMatch(/Δ judge-only/);
    expect(text).toMatch(/Δ PPI\+\+/);
  });

  it('changes nothing for a run without labels', () => {
    const none = checkJudge(records, [], options);
    expect(none).toMatchObject({ labelledAnswers: 0, conditions: [], deltas: [], agreement: [] });
    expect(judgeCheckSummary(none)).toBeUndefined();
    expect(judgeCheckTables(judgeCheckSummary(none))).toMatch(/No human labels/);
  });
});

describe('readRunLabels', () => {
  it('reads every annotator, the last line per answer winning, a torn last line ignored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'labels-'));
    mkdirSync(join(dir, 'labels'));
    const line = (annotator: string, key: string, score: number) =>
      JSON.stringify({ version: 1, key, itemKey: 'b:q1', model: 'm', condition: 'closed', sample: 0, annotator, correct: score ? 1 : 0, score, at: '2026-01-01T00:00:00Z', source: 'viewer' });
    writeFileSync(join(dir, 'labels', 'ann.jsonl'), [line('ann', 'k1', 0), line('ann', 'k2', 100), line('ann', 'k1', 100)].join('\n') + '\n' + line('ann', 'k3', 0).slice(0, 30));
    writeFileSync(join(dir, 'labels', 'bob.jsonl'), line('bob', 'k1', 0) + '\n');
    const labels = await readRunLabels(dir);
    expect(labels.map((l) => [l.annotator, l.key, l.score])).toEqual([
      ['ann', 'k1', 100],
      ['ann', 'k2', 100],
      ['bob', 'k1', 0],
    ]);
    writeFileSync(join(dir, 'labels', 'bob.jsonl'), '{"version":1}\n' + line('bob', 'k1', 0) + '\n');
    await expect(readRunLabels(dir)).rejects.toThrow(/bob\.jsonl:1/);
  });

  it('reads a run without labels as none', async () => {
    expect(await readRunLabels(mkdtempSync(join(tmpdir(), 'labels-')))).toEqual([]);
  });
});

describe('summary.json, the terminal table and the report with labels', () => {
  const { records, labels } = biasedRun();
  const base = { experiment: 'e', models: ['m'], conditions: ['closed', 'rag@5'], baseline: 'closed', cluster: 'volume', resamples: 200, seed: 1 };

  it('adds judgeCheck (schema-valid after a JSON round trip) beside the judge-only figures, and nothing without labels', () => {
    const summary = summarizeRun(records, { ...base, labels });
    const read = RunSummarySchema.parse(JSON.parse(JSON.stringify(summary)));
    expect(read.judgeCheck!.differences[0]).toMatchObject({ condition: 'rag@5', baseline: 'closed', n: QUESTIONS, labelled: LABELLED });
    expect(read.judgeCheck!.differences[0]!.judgeOnly.estimate).toBeCloseTo(read.paired.find((p) => p.condition === 'rag@5')!.meanDiff!, 9);
    expect(read.judgeCheck!.means.map((m) => m.condition)).toEqual(['closed', 'rag@5']);
    expect(summaryTable(read)).toMatch(/Δ PPI\+\+/);
    expect(judgeCheckSectionHtml(read.judgeCheck)).toMatch(/id="judge-check"/);
    const plain = summarizeRun(records, base);
    expect('judgeCheck' in plain).toBe(false);
    expect(summaryTable(plain)).not.toMatch(/PPI/);
  });
});

describe('hisrag judges and hisrag report on a run directory with labels/', () => {
  it('print the judge table and the corrected Δ, and write them into summary.json', { timeout: 60_000 }, async () => {
    const { records, labels } = biasedRun('closed-book');
    const dir = writeRunDir(records, { conditions: ['closed-book', 'rag@5'] });
    mkdirSync(join(dir, 'labels'));
    for (const annotator of ['h1', 'h2']) writeFileSync(join(dir, 'labels', `${annotator}.jsonl`), labels.filter((l) => l.annotator === annotator).map((l) => JSON.stringify(l) + '\n').join(''));
    const json = await runCli(['judges', dir, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const check = JSON.parse(json.stdout);
    const byKey = new Map(records.map((r) => [r.key, r]));
    const h1 = labels.filter((l) => l.annotator === 'h1').sort((a, b) => (a.key < b.key ? -1 : 1));
    expect(check.agreement[0].answerPearson.estimate).toBeCloseTo(rByVariances(h1.map((l) => byKey.get(l.key)!.score.score!), h1.map((l) => l.score!)), 12);
    expect(check.differences[0]).toMatchObject({ condition: 'rag@5', baseline: 'closed-book', labelled: LABELLED });
    const report = await runCli(['report', dir]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/Δ PPI\+\+/);
    expect(report.stdout).toMatch(/SYNTHETIC LABELS/);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.judgeCheck.differences[0].ppiPlusPlus).toEqual(check.differences[0].ppiPlusPlus);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/id="judge-check"/);
  });
});
