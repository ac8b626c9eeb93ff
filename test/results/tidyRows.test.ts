import { describe, expect, it } from 'vitest';
import { loadRun } from '../../src/results/loadRun.js';
import { tidyRows } from '../../src/results/tidyRows.js';
import { makeRecord, scored } from '../experiment/fixtures.js';
import { writeRunDir } from './runDirFixture.js';

describe('tidyRows', () => {
  it('flattens a record into condition, k, score, retrieval metrics and rubric hit counts', async () => {
    const record = makeRecord({
      itemId: '7',
      condition: 'rag@10',
      score: { status: 'scored', score: 62.5, scoreRaw: 62.5, metric: 'rs', verdicts: { 加分项_1: 1, 加分项_2: 1, 加分项_3: 0, 减分项_1: 1 } },
      retrievalMetrics: { recall: 0.5, precision: 0.1, ap: 0.3, mrr: 0.5, ndcg: 0.4 },
      contextIds: ['a', 'b', 'c'],
      truncated: 2,
    });
    const [row] = tidyRows(await loadRun(writeRunDir([record])));
    expect(row).toMatchObject({
      itemId: '7',
      condition: 'rag@10',
      strategy: 'rag',
      retriever: 'hnsw',
      k: 10,
      score: 62.5,
      recall: 0.5,
      bonusHits: 2,
      bonusItems: 3,
      deductionHits: 1,
      deductionItems: 1,
      contextChunks: 3,
      truncated: 2,
      groups: { task: 'T1' },
    });
  });

  it('gives reranked answers their recall before reranking, and marks reranked lists and fallbacks', async () => {
    const chunk = (id: string, rank: number, firstRank: number, fallback?: string) => ({
      id, rank, score: 1 / rank, title: '', text: id, firstStage: { rank: firstRank, score: 0.5 }, ...(fallback ? { rerankFallback: fallback } : {}),
    });
    const reranked = makeRecord({
      itemId: '1',
      condition: 'rag@2',
      retrieved: [chunk('a', 1, 2), chunk('b', 2, 1)],
      retrievalMetrics: { recall: 1, ap: 1, mrr: 1, ndcg: 1, 'firstStage.recall': 0.5, 'firstStage.ap': 0.25, 'firstStage.mrr': 0.5, 'firstStage.ndcg': 0.6 },
    });
    const fellBack = makeRecord({ itemId: '2', condition: 'rag@2', retrieved: [chunk('a', 1, 1, 'empty answer')] });
    const plain = makeRecord({ itemId: '3', condition: 'rag@2', retrievalMetrics: { recall: 1 } });
    const rows = tidyRows(await loadRun(writeRunDir([reranked, fellBack, plain])));
    expect(rows[0]).toMatchObject({ recall: 1, recallFirstStage: 0.5, apFirstStage: 0.25, mrrFirstStage: 0.5, ndcgFirstStage: 0.6, reranked: true, rerankFallback: false });
    expect(rows[1]).toMatchObject({ reranked: true, rerankFallback: true });
    expect(rows[2]).toMatchObject({ recallFirstStage: null, reranked: false, rerankFallback: false });
  });

  it('gives failed answers a null score and keeps their status', async () => {
    const failed = makeRecord({ itemId: '1', condition: 'closed-book', score: { status: 'generation_failed', score: null, scoreRaw: null, metric: 'rs' } as never });
    const [row] = tidyRows(await loadRun(writeRunDir([failed])));
    expect(row!.score).toBeNull();
    expect(row!.status).toBe('generation_failed');
  });

  it('orders rows by the manifest order of models and conditions', async () => {
    const records = [
      makeRecord({ itemId: '1', condition: 'rag@20' }),
      makeRecord({ itemId: '1', condition: 'closed-book' }),
      makeRecord({ itemId: '1', condition: 'rag@10' }),
    ];
    const rows = tidyRows(await loadRun(writeRunDir(records, { conditions: ['closed-book', 'rag@10', 'rag@20'] })));
    expect(rows.map((r) => r.condition)).toEqual(['closed-book', 'rag@10', 'rag@20']);
  });
});
