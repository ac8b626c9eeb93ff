import { resolve } from 'node:path';
import { z } from 'zod';
import type { RegistryEntry } from '../../registry.js';
import { applyBenchmarkFilter, BenchmarkFilterSchema, describeFilter } from '../filters.js';
import { parseRecord, readRecordFile } from '../readRecords.js';
import type { Benchmark, BenchmarkItem } from '../types.js';

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
  })
  .refine((r) => r.answer !== undefined || r.reference_answer !== undefined || r.rubrics !== undefined, {
    path: ['answer'],
    message: 'expected `answer` or `reference_answer` (or `rubrics`)',
  });
export type JsonlQaRecord = z.infer<typeof JsonlQaRecordSchema>;

export const JsonlParamsSchema = BenchmarkFilterSchema.extend({
  file: z.string().min(1),
  label: z.string().min(1).default('jsonl'),
}).strict();
export type JsonlParams = z.infer<typeof JsonlParamsSchema>;

const KNOWN_FIELDS = new Set(['id', 'question', 'answer', 'reference_answer', 'category', 'rubrics', 'gold_chunk_ids']);

export function jsonlItem(record: JsonlQaRecord, benchmark: string): BenchmarkItem {
  const meta: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (!KNOWN_FIELDS.has(key) && value !== undefined) meta[key] = value;
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
    meta,
  };
}

export const jsonlBenchmark: RegistryEntry<JsonlParams, Benchmark, void> = {
  name: 'jsonl',
  description: 'Generic QA: JSONL (or a JSON array) of {id, question, answer | reference_answer, category?, gold_chunk_ids?}.',
  params: JsonlParamsSchema,
  create(params) {
    let loaded: { sha256: string; total: number; count: number } | undefined;
    return {
      name: 'jsonl',
      async load() {
        const { records, sha256 } = await readRecordFile(params.file);
        const items = records.map((record) => jsonlItem(parseRecord(JsonlQaRecordSchema, record, params.file), params.label));
        const kept = applyBenchmarkFilter(items, params);
        loaded = { sha256, total: items.length, count: kept.length };
        return kept;
      },
      describe() {
        const { file, label, ...filter } = params;
        return { name: 'jsonl', label, file: resolve(file), ...(loaded ?? {}), filter: describeFilter({ ...filter }) };
      },
    };
  },
};
