import { z } from 'zod';
import { longHisDocItem } from '../../benchmarks/longhisdoc/loader.js';
import { LongHisDocRecordSchema } from '../../benchmarks/longhisdoc/schema.js';
import { scoreItem } from '../scoreItem.js';
import type { AnswerExtractor } from '../types.js';
import type { ItemScore } from '../../runFiles/itemRecord.js';

/** A LongHisDoc QA record with the model's `response` and optionally its `extracted` answer. */
export const ScoredLongHisDocRecordSchema = LongHisDocRecordSchema.extend({
  response: z.string().optional(),
  extracted: z.string().optional(),
});
export type ScoredLongHisDocRecord = z.infer<typeof ScoredLongHisDocRecordSchema>;

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
  return scoreItem(longHisDocItem(record, 'longhisdoc'), response, { ...(given ? { extractor: given } : {}), textMetrics: false });
}
