import { describe, expect, it } from 'vitest';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { judgeAgreementRows } from '../../src/results/judgeAgreement.js';
import { loadRun } from '../../src/results/loadRun.js';
import { makeRecord } from '../experiment/fixtures.js';
import { writeRunDir } from './runDirFixture.js';

const judged = (itemId: string, verdicts: Record<string, 0 | 1>): RunItemRecord => {
  const hits = Object.values(verdicts).filter((v) => v === 1).length;
  const score = (100 * hits) / Object.keys(verdicts).length;
  return makeRecord({ itemId, condition: 'rag@10', score: { status: 'scored', score, scoreRaw: score, metric: 'rs', verdicts } });
};

describe('judgeAgreementRows', () => {
  it('is perfect when both runs judged every rubric item alike', async () => {
    const records = [judged('1', { 加分项_1: 1, 加分项_2: 0 }), judged('2', { 加分项_1: 0, 加分项_2: 0 }), judged('3', { 加分项_1: 1, 加分项_2: 1 })];
    const a = await loadRun(writeRunDir(records));
    const b = await loadRun(writeRunDir(records));
    const { agreement, disagreements } = judgeAgreementRows(a, b);
    expect(agreement.itemLevel.r).toBeCloseTo(1);
    expect(agreement.answerLevel.r).toBeCloseTo(1);
    expect(disagreements).toEqual([]);
  });

  it('lists each answer the judges disagree on, largest score gap first, with the rubric items', async () => {
    const a = await loadRun(writeRunDir([judged('1', { 加分项_1: 1, 加分项_2: 0 }), judged('2', { 加分项_1: 1, 加分项_2: 1 }), judged('3', { 加分项_1: 0, 加分项_2: 0 })]));
    const b = await loadRun(writeRunDir([judged('1', { 加分项_1: 1, 加分项_2: 1 }), judged('2', { 加分项_1: 0, 加分项_2: 0 }), judged('3', { 加分项_1: 0, 加分项_2: 0 })]));
    const { agreement, disagreements } = judgeAgreementRows(a, b);
    expect(disagreements.map((d) => d.key)).toEqual(['m|rag@10|b:2', 'm|rag@10|b:1']);
    expect(disagreements[0]).toMatchObject({ question: 'question 2', scoreA: 100, scoreB: 0 });
    expect(disagreements[1]!.items).toEqual([{ item: '加分项_2', a: 0, b: 1 }]);
    expect(agreement.itemLevel.r).toBeLessThan(1);
  });

  it('leaves out answers whose text differs between the runs and counts them', async () => {
    const a = await loadRun(writeRunDir([judged('1', { 加分项_1: 1, 加分项_2: 0 }), judged('2', { 加分项_1: 1, 加分项_2: 1 }), judged('3', { 加分项_1: 0, 加分项_2: 1 })]));
    const other = { ...judged('2', { 加分项_1: 0, 加分项_2: 0 }), response: { text: 'another answer', raw: 'another answer' } };
    const b = await loadRun(writeRunDir([judged('1', { 加分项_1: 1, 加分项_2: 0 }), other, judged('3', { 加分项_1: 0, 加分项_2: 1 })]));
    const { agreement, disagreements, differentAnswers } = judgeAgreementRows(a, b);
    expect(differentAnswers).toBe(1);
    expect(disagreements).toEqual([]);
    expect(agreement.answerLevel.n).toBe(2);
  });
});
