import { z } from 'zod';
import type { RegistryEntry } from '../../registry.js';
import { fileBenchmark } from '../fileBenchmark.js';
import { applyBenchmarkFilter } from '../filters.js';
import { parseRecord } from '../readRecords.js';
import { metadataGroups, otherFields, readRecordItems } from '../recordFields.js';
import { GoldSpanSchema } from '../goldSpans.js';
import type { Benchmark, BenchmarkItem } from '../types.js';
import { jsonlSchema, type JsonlParams } from './loaderSchema.js';

export { JsonlParamsSchema, type JsonlParams } from './loaderSchema.js';

/** A generic QA record: free-text answers scored against the reference (or a rubric when given). */
export const JsonlQaRecordSchema = z
  .looseObject({
    id: z.union([z.string().min(1), z.number().int()]).transform(String),
    question: z.string().min(1),
    answer: z.string().optional(),
    reference_answer: z.string().optional(),
    category: z.string().optional(),
    rubrics: z.string().optional(),
    gold_chunk_ids: z.array(z.string().min(1)).optional(),
    gold_spans: z.array(GoldSpanSchema).min(1).optional().describe('Gold evidence as character ranges of corpus documents (`documents.jsonl`): `[{doc, start, end}]`'),
    gold_evidence: z.array(z.string().min(1)).min(1).optional().describe('Gold evidence as text excerpts, located in the corpus\'s documents'),
    metadata: z.record(z.string(), z.unknown()).optional().describe('Fields of one\'s own: kept in `meta`, and their scalar values become groups'),
  })
  .refine((r) => r.answer !== undefined || r.reference_answer !== undefined || r.rubrics !== undefined, {
    path: ['answer'],
    message: 'expected `answer` or `reference_answer` (or `rubrics`)',
  });
export type JsonlQaRecord = z.infer<typeof JsonlQaRecordSchema>;

/** The fields of a JSONL benchmark record (docs/benchmarks.md). */
export const JSONL_RECORD_FIELDS = ['id', 'question', 'answer', 'reference_answer', 'category', 'rubrics', 'gold_chunk_ids', 'gold_spans', 'gold_evidence', 'metadata'] as const;
const KNOWN_FIELDS = new Set<string>(JSONL_RECORD_FIELDS);

export function jsonlItem(record: JsonlQaRecord, benchmark: string, declared: readonly string[] = []): BenchmarkItem {
  const meta = { ...record.metadata, ...otherFields(record, KNOWN_FIELDS) };
  const reference = record.reference_answer ?? record.answer;
  return {
    id: record.id,
    benchmark,
    kind: record.rubrics ? 'rubric' : 'reference',
    question: record.question,
    category: record.category ?? 'all',
    ...(record.rubrics ? { rubrics: record.rubrics } : {}),
    ...(reference !== undefined ? { referenceAnswer: reference } : {}),
    ...(record.answer !== undefined ? { answer: record.answer } : {}),
    ...(record.gold_chunk_ids ? { goldChunkIds: record.gold_chunk_ids } : {}),
    ...(record.gold_spans ? { goldSpans: record.gold_spans } : {}),
    ...(record.gold_evidence ? { goldEvidence: record.gold_evidence } : {}),
    ...metadataGroups(meta, [...declared, ...Object.keys(record.metadata ?? {})]),
    meta,
  };
}

export const jsonlBenchmark: RegistryEntry<JsonlParams, Benchmark, void> = {
  ...jsonlSchema,
  create: (params) =>
    fileBenchmark('jsonl', params, {}, async () => {
      const rules = { format: 'jsonl', known: JSONL_RECORD_FIELDS, declared: params.metadata, alsoKeepBy: 'put it in the record\'s "metadata" object' };
      const { items, sha256 } = await readRecordItems(params.file, rules, (record) =>
        jsonlItem(parseRecord(JsonlQaRecordSchema, record, params.file), params.label, params.metadata),
      );
      const kept = applyBenchmarkFilter(items, params);
      return { items: kept, found: { sha256, total: items.length, count: kept.length } };
    }),
};
