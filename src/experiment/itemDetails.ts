import type { BenchmarkItem } from '../benchmarks/types.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { retrievalMetrics } from '../scoring/retrievalMetrics.js';
import type { RunItemRecord } from './records.js';

/** Breakdown keys for a record: ProHist task and dynasty, LongHisDoc type / answer type / modality. */
export function itemGroups(item: BenchmarkItem): Record<string, string> {
  const groups: Record<string, string> = { category: item.category };
  if (item.task) groups.task = item.task;
  if (item.answerType) groups.answer_type = item.answerType;
  if (item.evidenceModal !== undefined) groups.evidence_modal = item.evidenceModal || '(none)';
  const dynasty = item.meta.dynasty;
  if (typeof dynasty === 'string' && dynasty) groups.dynasty = dynasty;
  const difficulty = item.meta.level_of_difficulty ?? item.meta.difficulty;
  if (typeof difficulty === 'string' || typeof difficulty === 'number') groups.difficulty = String(difficulty);
  return groups;
}

function pageOf(chunk: RetrievedChunk): number | undefined {
  const page = chunk.meta.page;
  return typeof page === 'number' ? page : undefined;
}

export function recordedChunks(chunks: RetrievedChunk[]): RunItemRecord['retrieved'] {
  return chunks.map((c) => {
    const page = pageOf(c);
    return {
      id: c.id,
      rank: c.rank,
      score: c.score,
      title: c.title,
      text: c.text,
      ...(page !== undefined ? { page } : {}),
      ...(c.firstStage ? { firstStage: c.firstStage } : {}),
      ...(c.rerankFallback ? { rerankFallback: c.rerankFallback } : {}),
    };
  });
}

/** Prefix of the metrics of a reranked retriever's first-stage list (`firstStage.recall` …): recall@k before reranking. */
export const FIRST_STAGE_PREFIX = 'firstStage.';

/**
 * Retrieval metrics at depth k; with a reranked retriever's first-stage list, the same metrics
 * of its top k as well, prefixed `firstStage.` (before vs after reranking).
 */
export function retrievalMetricsFor(item: BenchmarkItem, retrieved: RetrievedChunk[], k: number, firstStage?: RetrievedChunk[]): Record<string, number> | undefined {
  const after = listMetrics(item, retrieved, k);
  if (!after || !firstStage) return after;
  const before = listMetrics(item, firstStage, k)!;
  return { ...after, ...Object.fromEntries(Object.entries(before).map(([name, value]) => [`${FIRST_STAGE_PREFIX}${name}`, value])) };
}

/**
 * Retrieval metrics at depth k when the item has gold evidence: gold chunk ids when the
 * benchmark names them, else LongHisDoc evidence pages (ranked pages = first occurrence of
 * each page among the retrieved chunks of the item's document). Unanswerable items and items
 * without gold get none.
 */
function listMetrics(item: BenchmarkItem, retrieved: RetrievedChunk[], k: number): Record<string, number> | undefined {
  if (item.goldChunkIds?.length) {
    return { ...retrievalMetrics(retrieved.map((c) => c.id), item.goldChunkIds, k) };
  }
  if (item.evidencePages?.length && item.docId) {
    const pages: number[] = [];
    for (const chunk of retrieved) {
      const page = pageOf(chunk);
      const book = typeof chunk.meta.doc_id === 'string' ? chunk.meta.doc_id : chunk.docId;
      if (page !== undefined && (chunk.docId === item.docId || book === item.docId) && !pages.includes(page)) pages.push(page);
    }
    return { ...retrievalMetrics(pages, item.evidencePages, k) };
  }
  return undefined;
}
