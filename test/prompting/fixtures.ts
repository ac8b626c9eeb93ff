import type { BenchmarkItem } from '../../src/benchmarks/types.js';
import type { RetrievedChunk } from '../../src/retrieval/types.js';

export function item(over: Partial<BenchmarkItem> = {}): BenchmarkItem {
  return { id: 'q1', benchmark: 'test', kind: 'rubric', question: '王安石变法始于哪一年？', category: '简答题', task: 'T2', meta: {}, ...over };
}

export function chunk(rank: number, over: Partial<RetrievedChunk> = {}): RetrievedChunk {
  return {
    id: `c${rank}`,
    docId: `doc${rank}`,
    title: `标题${rank}`,
    text: `第${rank}段：王安石变法始于熙宁二年。`,
    meta: {},
    score: 1 / rank,
    rank,
    ...over,
  };
}
