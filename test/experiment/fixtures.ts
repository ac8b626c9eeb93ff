import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';

/** A run record with sensible defaults, for summary and report tests. */
export function makeRecord(partial: Partial<RunItemRecord> & { itemId: string; condition: string; score?: RunItemRecord['score'] }): RunItemRecord {
  const model = partial.model ?? 'm';
  const k = partial.k ?? (partial.condition.includes('@') ? Number(partial.condition.split('@')[1]) : null);
  return {
    key: `${model}|${partial.condition}|b:${partial.itemId}`,
    benchmark: 'b',
    kind: 'rubric',
    category: '名词解释',
    task: 'T1',
    question: `question ${partial.itemId}`,
    model,
    strategy: partial.condition.split('@')[0]!,
    retriever: k === null ? null : 'hnsw',
    k,
    prompt: [{ role: 'user', content: 'q' }],
    retrieved: [],
    contextIds: [],
    truncated: 0,
    response: { text: 'answer', raw: 'answer' },
    groups: { task: 'T1' },
    durationMs: 1,
    ...partial,
    score: partial.score ?? { status: 'scored', score: 50, scoreRaw: 50, metric: 'rubric_score' },
  } as RunItemRecord;
}

export const scored = (score: number): RunItemRecord['score'] => ({ status: 'scored', score, scoreRaw: score, metric: 'rubric_score' });
