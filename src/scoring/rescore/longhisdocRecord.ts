import { z } from 'zod';
import type { BenchmarkItem } from '../../benchmarks/types.js';
import { LongHisDocRecordSchema, parsePageList, type LongHisDocRecord } from '../longhisdoc/schema.js';
import { scoreItem } from '../scoreItem.js';
import type { AnswerExtractor, ItemScore } from '../types.js';

/** A LongHisDoc QA record with the model's `response` and optionally its `extracted` answer. */
export const ScoredLongHisDocRecordSchema = LongHisDocRecordSchema.extend({
  response: z.string().optional(),
  extracted: z.string().optional(),
});
export type ScoredLongHisDocRecord = z.infer<typeof ScoredLongHisDocRecordSchema>;

/** The normalised benchmark item of a raw LongHisDoc QA record. */
export function longHisDocItem(record: LongHisDocRecord): BenchmarkItem {
  return {
    id: record.item_id,
    benchmark: 'longhisdoc',
    kind: 'longhisdoc',
    question: record.question,
    category: record.type,
    task: record.type,
    answer: record.answer,
    answerType: record.answer_type,
    docId: record.doc_id,
    evidencePages: parsePageList(record.evidence_pages) ?? [],
    inputPages: parsePageList(record.input_pages) ?? [],
    evidenceModal: record.evidence_modal,
    meta: { book_name: record.book_name, guji_type_en: record.guji_type_en },
  };
}

/**
 * Re-scores a saved LongHisDoc answer with the shared scorer: a saved `extracted` answer is
 * used as is, otherwise the given extractor (rules by default) fills it. A record without
 * `response` and `extracted` is an unanswered question and scores 0.
 */
export async function rescoreLongHisDocRecord(record: ScoredLongHisDocRecord, extractor?: AnswerExtractor): Promise<ItemScore> {
  const response = record.response ?? record.extracted;
  if (response === undefined) return { status: 'scored', metric: 'accuracy', score: 0, scoreRaw: 0, rule: 'no-response' };
  const saved = record.extracted;
  const given: AnswerExtractor | undefined = saved !== undefined ? { name: 'saved', extract: async () => saved } : extractor;
  return scoreItem(longHisDocItem(record), response, { ...(given ? { extractor: given } : {}), textMetrics: false });
}
