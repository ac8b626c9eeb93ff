import { describe, expect, it } from 'vitest';
import { summarizeScores } from '../../src/statistics/bootstrap.js';
import { seedFor } from '../../src/statistics/run.js';
import { groupMeans, pairedDifferences } from '../../src/results/groupMeans.js';
import { loadRun } from '../../src/results/loadRun.js';
import { tidyRows } from '../../src/results/tidyRows.js';
import { makeRecord, scored } from '../experiment/fixtures.js';
import { writeRunDir } from './runDirFixture.js';

const failed = { status: 'judge_failed', score: null, scoreRaw: null, metric: 'rs' } as const;

async function rowsOf(records: Parameters<typeof writeRunDir>[0]) {
  return tidyRows(await loadRun(writeRunDir(records)));
}

describe('groupMeans', () => {
  it('gives each group its mean with the seeded bootstrap CI of the runner (a whole cell: the summary\'s seed for it)', async () => {
    const scores = [10, 20, 30, 90];
    const rows = await rowsOf(scores.map((s, i) => makeRecord({ itemId: String(i), condition: 'rag@10', score: scored(s) })));
    const [g] = groupMeans(rows, ['k'], { resamples: 500, seed: 3 });
    const expected = summarizeScores(scores, { resamples: 500, seed: seedFor(3, 'm|rag@10') });
    expect(g).toEqual({ keys: { k: 10 }, n: 4, failed: 0, mean: 37.5, ciLow: expected.ciLow, ciHigh: expected.ciHigh });
    expect(g!.ciLow!).toBeLessThan(37.5);
    expect(g!.ciHigh!).toBeGreaterThan(37.5);
  });

  it('leaves failures out of the mean and counts them', async () => {
    const rows = await rowsOf([
      makeRecord({ itemId: '1', condition: 'closed-book', score: scored(40) }),
      makeRecord({ itemId: '2', condition: 'closed-book', score: failed }),
    ]);
    expect(groupMeans(rows, ['condition'])[0]).toMatchObject({ n: 1, failed: 1, mean: 40 });
  });

  it('groups by a recorded breakdown group with groups.<name>', async () => {
    const rows = await rowsOf([
      makeRecord({ itemId: '1', condition: 'closed-book', groups: { dynasty: '唐' }, score: scored(10) }),
      makeRecord({ itemId: '2', condition: 'closed-book', groups: { dynasty: '宋' }, score: scored(30) }),
      makeRecord({ itemId: '3', condition: 'closed-book', groups: { dynasty: '宋' }, score: scored(50) }),
    ]);
    const means = groupMeans(rows, ['groups.dynasty']);
    expect(means.map((m) => [m.keys['groups.dynasty'], m.mean])).toEqual([
      ['唐', 10],
      ['宋', 40],
    ]);
  });

  it('averages another numeric field, e.g. recall', async () => {
    const rows = await rowsOf([
      makeRecord({ itemId: '1', condition: 'rag@10', retrievalMetrics: { recall: 1 } }),
      makeRecord({ itemId: '2', condition: 'rag@10', retrievalMetrics: { recall: 0 } }),
      makeRecord({ itemId: '3', condition: 'rag@10' }),
    ]);
    expect(groupMeans(rows, ['k'], { value: 'recall' })[0]).toMatchObject({ n: 2, failed: 1, mean: 0.5 });
  });
});

describe('pairedDifferences', () => {
  it('takes each condition minus closed-book on the questions both scored', async () => {
    const rows = await rowsOf([
      makeRecord({ itemId: '1', condition: 'closed-book', score: scored(10) }),
      makeRecord({ itemId: '2', condition: 'closed-book', score: scored(20) }),
      makeRecord({ itemId: '3', condition: 'closed-book', score: failed }),
      makeRecord({ itemId: '1', condition: 'rag@10', score: scored(30) }),
      makeRecord({ itemId: '2', condition: 'rag@10', score: scored(30) }),
      makeRecord({ itemId: '3', condition: 'rag@10', score: scored(100) }),
    ]);
    const [d] = pairedDifferences(rows, { resamples: 300 });
    expect(d).toMatchObject({ model: 'm', condition: 'rag@10', baseline: 'closed-book', n: 2, meanDiff: 15, sharePositive: 1 });
    expect(d!.ciLow).toBeGreaterThanOrEqual(10);
    expect(d!.ciHigh).toBeLessThanOrEqual(20);
  });

  it('pairs within a model only', async () => {
    const rows = await rowsOf([
      makeRecord({ itemId: '1', condition: 'closed-book', model: 'a', score: scored(10) }),
      makeRecord({ itemId: '1', condition: 'rag@10', model: 'a', score: scored(20) }),
      makeRecord({ itemId: '1', condition: 'closed-book', model: 'b', score: scored(50) }),
      makeRecord({ itemId: '1', condition: 'rag@10', model: 'b', score: scored(40) }),
    ]);
    expect(pairedDifferences(rows, { resamples: 100 }).map((d) => [d.model, d.meanDiff])).toEqual([
      ['a', 10],
      ['b', -10],
    ]);
  });

  it('takes another baseline when asked', async () => {
    const rows = await rowsOf([
      makeRecord({ itemId: '1', condition: 'rag@10', score: scored(20) }),
      makeRecord({ itemId: '1', condition: 'rag@20', score: scored(35) }),
    ]);
    expect(pairedDifferences(rows, { baseline: 'rag@10', resamples: 100 })).toMatchObject([{ condition: 'rag@20', meanDiff: 15 }]);
  });
});
