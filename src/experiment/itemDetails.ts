import type { BenchmarkItem } from '../benchmarks/types.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { retrievalMetrics } from '../scoring/retrievalMetrics.js';
import { spanMetrics, type SpannedPassage, type TextSpan } from '../scoring/spanMetrics.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { codePointLength } from '../text/codePoints.js';

/** Breakdown keys for a record: ProHist task and dynasty, LongHisDoc type / answer type / modality. */
export function itemGroups(item: BenchmarkItem): Record<string, string> {
  const groups: Record<string, string> = { ...item.groups, category: item.category };
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

/** Where a passage is in its documents (its chunk's `meta.spans`; none for a passage from outside the corpus) and the code points it puts in the context. */
export function spannedPassage(chunk: { text: string; meta?: Record<string, unknown>; spans?: readonly TextSpan[] }): SpannedPassage {
  const spans = chunk.spans ?? chunkSpansOf(chunk.meta);
  return { spans: spans ?? [], chars: codePointLength(chunk.text) };
}

function chunkSpansOf(meta: Record<string, unknown> | undefined): TextSpan[] | undefined {
  const spans = meta?.spans;
  return Array.isArray(spans) ? (spans as TextSpan[]) : undefined;
}

export function recordedChunks(chunks: RetrievedChunk[]): RunItemRecord['retrieved'] {
  return chunks.map((c) => {
    const page = pageOf(c);
    const spans = chunkSpansOf(c.meta);
    return {
      id: c.id,
      rank: c.rank,
      score: c.score,
      title: c.title,
      text: c.text,
      ...(page !== undefined ? { page } : {}),
      ...(spans ? { spans } : {}),
      ...(c.firstStage ? { firstStage: c.firstStage } : {}),
      ...(c.rerankFallback ? { rerankFallback: c.rerankFallback } : {}),
    };
  });
}

/** Prefix of the metrics of a reranked retriever's first-stage list (`firstStage.recall` …): recall@k before reranking. */
export const FIRST_STAGE_PREFIX = 'firstStage.';

/** Prefix of the metrics of the passages that reached a method's final prompt, where they differ from all it retrieved. */
export const FINAL_PROMPT_PREFIX = 'final.';

const prefixed = (prefix: string, metrics: Record<string, number>) => Object.fromEntries(Object.entries(metrics).map(([name, value]) => [`${prefix}${name}`, value]));

/**
 * Retrieval metrics of what a method retrieved: the union of its retrievals (in order of first
 * retrieval; at depth k, or deeper when several retrievals gave more than k passages). Where the
 * final prompt got fewer of them (a refiner, the context budget, a closed-book branch), the same
 * metrics of those are added with the prefix `final.`; with a reranked retriever's first-stage
 * list, its metrics at k with the prefix `firstStage.` (before vs after reranking).
 */
export function methodRetrievalMetrics(
  item: BenchmarkItem,
  retrieved: RetrievedChunk[],
  contextIds: string[],
  k: number,
  firstStage?: RetrievedChunk[],
  goldSpans?: readonly TextSpan[],
): Record<string, number> | undefined {
  const listMetrics = (list: RetrievedChunk[], depth: number) => {
    const ids = idMetrics(item, list, depth);
    const spans = goldSpans ? spanMetrics(list.slice(0, depth).map(spannedPassage), goldSpans) : undefined;
    return ids || spans ? { ...ids, ...spans } : undefined;
  };
  const all = listMetrics(retrieved, Math.max(k, retrieved.length));
  if (!all) return undefined;
  const placed = new Set(contextIds);
  const reached = retrieved.filter((chunk) => placed.has(chunk.id));
  const differs = reached.length !== retrieved.length;
  return {
    ...all,
    ...(firstStage ? prefixed(FIRST_STAGE_PREFIX, listMetrics(firstStage, k)!) : {}),
    ...(differs ? prefixed(FINAL_PROMPT_PREFIX, listMetrics(reached, Math.max(k, reached.length))!) : {}),
  };
}

/**
 * Retrieval metrics at depth k when the item has gold evidence: gold chunk ids when the
 * benchmark names them, else LongHisDoc evidence pages (ranked pages = first occurrence of
 * each page among the retrieved chunks of the item's document). Unanswerable items and items
 * without gold get none.
 */
function idMetrics(item: BenchmarkItem, retrieved: RetrievedChunk[], k: number): Record<string, number> | undefined {
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
