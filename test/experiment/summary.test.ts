import { describe, expect, it } from 'vitest';
import { summarizeRun } from '../../src/analysis/summary.js';
import { makeRecord, scored } from './fixtures.js';

const options = { experiment: 'e', models: ['m'], conditions: ['closed-book', 'rag@10'], baseline: 'closed-book', resamples: 500, seed: 7 };

function records() {
  const out = [];
  for (let i = 0; i < 20; i++) {
    out.push(makeRecord({ itemId: String(i), condition: 'closed-book', score: scored(i % 2 ? 40 : 20) }));
    out.push(makeRecord({ itemId: String(i), condition: 'rag@10', score: scored(i % 2 ? 60 : 30) }));
  }
  return out;
}

describe('run summary', () => {
  it('gives the mean score of each model × condition with a CI around it', () => {
    const summary = summarizeRun(records(), options);
    const cb = summary.cells.find((c) => c.condition === 'closed-book')!;
    const rag = summary.cells.find((c) => c.condition === 'rag@10')!;
    expect(cb.score.mean).toBeCloseTo(30);
    expect(rag.score.mean).toBeCloseTo(45);
    expect(rag.score.ciLow!).toBeLessThan(45);
    expect(rag.score.ciHigh!).toBeGreaterThan(45);
    expect(rag.k).toBe(10);
  });

  it('takes the paired difference against the baseline on the same questions', () => {
    const summary = summarizeRun(records(), options);
    const diff = summary.paired.find((p) => p.condition === 'rag@10')!;
    expect(diff.n).toBe(20);
    expect(diff.meanDiff).toBeCloseTo(15);
    expect(diff.sharePositive).toBe(1);
  });

  it('excludes failed items from means and counts them', () => {
    const list = records();
    list.push(makeRecord({ itemId: 'x', condition: 'rag@10', score: { status: 'generation_failed', score: null, scoreRaw: null, metric: 'rubric_score', error: 'HTTP 500' } }));
    list.push(makeRecord({ itemId: 'y', condition: 'rag@10', score: { status: 'judge_failed', score: null, scoreRaw: null, metric: 'rubric_score', error: 'unparseable' } }));
    const rag = summarizeRun(list, options).cells.find((c) => c.condition === 'rag@10')!;
    expect(rag.items).toBe(22);
    expect(rag.scored).toBe(20);
    expect(rag.failed).toEqual({ generation: 1, judge: 1 });
    expect(rag.score.mean).toBeCloseTo(45);
  });

  it('does not depend on the order in which records finished', () => {
    const list = records();
    const shuffled = [...list].reverse();
    expect(JSON.stringify(summarizeRun(shuffled, options))).toBe(JSON.stringify(summarizeRun(list, options)));
  });

  it('breaks scores down by group', () => {
    const list = records().map((r, i) => ({ ...r, groups: { task: i % 4 < 2 ? 'T1' : 'T2' } }));
    const cb = summarizeRun(list, options).cells.find((c) => c.condition === 'closed-book')!;
    expect(Object.keys(cb.byGroup.task!)).toEqual(['T1', 'T2']);
    expect(cb.byGroup.task!.T1!.n + cb.byGroup.task!.T2!.n).toBe(20);
  });

  it('averages retrieval metrics over the items that have them', () => {
    const list = records().map((r) => (r.condition === 'rag@10' ? { ...r, retrievalMetrics: { recall: Number(r.itemId) % 2, precision: 0.1 } } : r));
    const rag = summarizeRun(list, options).cells.find((c) => c.condition === 'rag@10')!;
    expect(rag.retrieval).toEqual({ precision: expect.closeTo(0.1), recall: 0.5 });
    expect(summarizeRun(list, options).cells.find((c) => c.condition === 'closed-book')!.retrieval).toBeNull();
  });

  it('counts empty answers and reranker fallbacks per cell, and names the cell\'s metric', () => {
    const list = records();
    list.push(makeRecord({ itemId: 'e1', condition: 'rag@10', score: { ...scored(0), rule: 'empty-answer' } }));
    list.push(
      makeRecord({
        itemId: 'e2',
        condition: 'rag@10',
        score: { status: 'generation_failed', score: null, scoreRaw: null, metric: 'rs', rule: 'empty-answer', error: 'empty answer' },
      }),
    );
    const fallback = makeRecord({ itemId: 'f1', condition: 'rag@10', score: scored(50) });
    fallback.retrieved = [{ id: 'c1', rank: 1, score: 0.5, title: 't', text: 'x', rerankFallback: 'unusable ranking' }];
    list.push(fallback);
    const summary = summarizeRun(list, options);
    const rag = summary.cells.find((c) => c.condition === 'rag@10')!;
    expect(rag.empty).toBe(2);
    expect(rag.rerankFallbacks).toBe(1);
    expect(summary.totals.empty).toBe(2);
    expect(summary.cells.find((c) => c.condition === 'closed-book')!.empty).toBe(0);
    expect(rag.metric).toBe([...new Set(list.filter((r) => r.condition === 'rag@10').map((r) => r.score.metric))].sort().join('+'));
  });
});
