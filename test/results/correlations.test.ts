import { describe, expect, it } from 'vitest';
import { correlations } from '../../src/results/correlations.js';
import { loadRun } from '../../src/results/loadRun.js';
import { tidyRows } from '../../src/results/tidyRows.js';
import { makeRecord, scored } from '../experiment/fixtures.js';
import { writeRunDir } from './runDirFixture.js';

describe('correlations', () => {
  it('gives Pearson r of recall vs score per k over the rows that have both', async () => {
    const rows = tidyRows(
      await loadRun(
        writeRunDir([
          makeRecord({ itemId: '1', condition: 'rag@10', retrievalMetrics: { recall: 0 }, score: scored(10) }),
          makeRecord({ itemId: '2', condition: 'rag@10', retrievalMetrics: { recall: 0.5 }, score: scored(20) }),
          makeRecord({ itemId: '3', condition: 'rag@10', retrievalMetrics: { recall: 1 }, score: scored(30) }),
          makeRecord({ itemId: '4', condition: 'rag@10', score: scored(90) }),
          makeRecord({ itemId: '1', condition: 'rag@20', retrievalMetrics: { recall: 1 }, score: scored(0) }),
          makeRecord({ itemId: '2', condition: 'rag@20', retrievalMetrics: { recall: 0 }, score: scored(50) }),
        ]),
      ),
    );
    const [k10, k20] = correlations(rows, ['k'], 'recall', 'score');
    expect(k10).toMatchObject({ keys: { k: 10 }, n: 3, meanA: 0.5, meanB: 20 });
    expect(k10!.r).toBeCloseTo(1);
    expect(k20!.r).toBeCloseTo(-1);
  });

  it('gives r = null when a field does not vary', async () => {
    const rows = tidyRows(
      await loadRun(
        writeRunDir([
          makeRecord({ itemId: '1', condition: 'rag@10', retrievalMetrics: { recall: 1 }, score: scored(10) }),
          makeRecord({ itemId: '2', condition: 'rag@10', retrievalMetrics: { recall: 1 }, score: scored(20) }),
        ]),
      ),
    );
    expect(correlations(rows, ['k'], 'recall', 'score')[0]).toMatchObject({ n: 2, r: null });
  });
});
