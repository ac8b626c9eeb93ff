import type { BenchmarkItem } from '../benchmarks/types.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import type { Evidence, GoldRankBucket } from '../runFiles/diagnosis.js';

type RecordedChunk = RunItemRecord['retrieved'][number];

/** The gold evidence an item names, as ids a recorded chunk can be matched against; empty when none. */
export function goldEvidenceIds(item: BenchmarkItem): string[] {
  if (item.goldChunkIds?.length) return [...item.goldChunkIds];
  if (item.evidencePages?.length && item.docId) return item.evidencePages.map((page) => `page:${page}`);
  return [];
}

/** Whether a recorded chunk is gold: its id is a gold chunk id, or it is an evidence page of the item's document. */
export function isGoldChunk(item: BenchmarkItem, chunk: RecordedChunk): boolean {
  if (item.goldChunkIds?.length) return item.goldChunkIds.includes(chunk.id);
  if (!item.evidencePages?.length || !item.docId || chunk.page === undefined) return false;
  // LongHisDoc chunk ids are `<corpus>:<doc_id>-p<page>…`; a chunk of another book with the same page number is not gold.
  const ofDocument = chunk.id.includes(`:${item.docId}-p`) || !/:[^:]+-p\d+/.test(chunk.id);
  return ofDocument && item.evidencePages.includes(chunk.page);
}

/** Where the item's gold evidence went in one answer (prompt, retrieved but cut, not retrieved) and its best rank. */
export function evidenceOf(item: BenchmarkItem, record: Pick<RunItemRecord, 'retrieved' | 'contextIds'>): Evidence | undefined {
  const gold = goldEvidenceIds(item);
  if (gold.length === 0) return undefined;
  const goldChunks = record.retrieved.filter((chunk) => isGoldChunk(item, chunk));
  const inPrompt = new Set(record.contextIds);
  const bestRank = goldChunks.length ? Math.min(...goldChunks.map((chunk) => chunk.rank)) : null;
  const status = goldChunks.some((chunk) => inPrompt.has(chunk.id)) ? 'inPrompt' : goldChunks.length ? 'retrievedNotInPrompt' : 'notRetrieved';
  return { gold, status, bestRank };
}

export function goldRankBucket(rank: number | null): GoldRankBucket {
  if (rank === null) return 'not retrieved';
  if (rank === 1) return '1';
  if (rank <= 5) return '2-5';
  if (rank <= 10) return '6-10';
  if (rank <= 20) return '11-20';
  if (rank <= 50) return '21-50';
  if (rank <= 100) return '51-100';
  return '>100';
}
