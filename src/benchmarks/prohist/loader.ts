import type { RegistryEntry } from '../../registry.js';
import { fileBenchmark } from '../fileBenchmark.js';
import { applyBenchmarkFilter } from '../filters.js';
import { parseRecord } from '../readRecords.js';
import { metadataGroups, otherFields, readRecordItems } from '../recordFields.js';
import { PROHIST_TASKS, type Benchmark, type BenchmarkItem } from '../types.js';
import { isOptionLetters, ProHistRecordSchema, type ProHistRecord } from './recordSchema.js';
import { proHistSchema, type ProHistParams } from './loaderSchema.js';

export { ProHistParamsSchema, type ProHistParams } from './loaderSchema.js';

const KNOWN_FIELDS = new Set(['id', 'category', 'question', 'rubrics', 'reference_answer', 'length_constraint', 'answer']);
/** Every field of a ProHist-Bench release record (its README): the read ones and the release's metadata, kept in `meta`. */
export const PROHIST_RECORD_FIELDS = [...KNOWN_FIELDS, 'rubric_axis', 'level_of_difficulty', 'dynasty', 'topic'] as const;

/** A ProHist record as a BenchmarkItem: categories map to T1–T4/MCQ; the rest goes to `meta`. */
export function proHistItem(record: ProHistRecord, benchmark: string, declared: readonly string[] = []): BenchmarkItem {
  const meta = otherFields(record, KNOWN_FIELDS);
  // Multiple choice: the 选择题 category, or letters as the only thing to score against.
  const mcq = record.category === '选择题' || (isOptionLetters(record.answer) && !record.rubrics);
  return {
    id: record.id,
    benchmark,
    kind: mcq ? 'mcq' : 'rubric',
    question: record.question,
    category: record.category,
    // Categories outside the README's list (source-analysis types of the 504 version) keep their own name.
    task: PROHIST_TASKS[record.category] ?? record.category,
    ...(record.rubrics ? { rubrics: record.rubrics } : {}),
    ...(record.reference_answer ? { referenceAnswer: record.reference_answer } : !mcq && record.answer ? { referenceAnswer: record.answer } : {}),
    ...(record.length_constraint ? { lengthConstraint: record.length_constraint } : {}),
    ...(mcq ? { answer: record.answer!.trim().toUpperCase() } : record.answer !== undefined ? { answer: record.answer } : {}),
    ...metadataGroups(meta, declared),
    meta,
  };
}

/** True for a record whose only problem is a missing rubric (what `onUnscorable: skip` leaves out). */
function lacksRubricOnly(value: unknown): boolean {
  const parsed = ProHistRecordSchema.safeParse(value);
  return !parsed.success && parsed.error.issues.every((issue) => issue.path.length === 1 && issue.path[0] === 'rubrics');
}

export async function loadProHist(
  params: ProHistParams,
): Promise<{ items: BenchmarkItem[]; sha256: string; total: number; skippedUnscorable: string[] }> {
  const skippedUnscorable: string[] = [];
  const rules = { format: 'prohist', known: PROHIST_RECORD_FIELDS, declared: params.metadata };
  const { items, sha256 } = await readRecordItems(params.file, rules, (record) => {
    if (params.onUnscorable === 'skip' && lacksRubricOnly(record.value)) {
      const id = (record.value as { id?: unknown }).id;
      skippedUnscorable.push(id === undefined ? record.where : String(id));
      return undefined;
    }
    return proHistItem(parseRecord(ProHistRecordSchema, record, params.file), params.label, params.metadata);
  });
  return { items: applyBenchmarkFilter(items, params), sha256, total: items.length, skippedUnscorable };
}

export const proHistBenchmark: RegistryEntry<ProHistParams, Benchmark, void> = {
  ...proHistSchema,
  create: (params) =>
    fileBenchmark('prohist', params, { onUnscorable: params.onUnscorable }, async () => {
      const { items, sha256, total, skippedUnscorable: skipped } = await loadProHist(params);
      const skippedUnscorable = skipped.length ? { skippedUnscorable: { count: skipped.length, ids: skipped.slice(0, 20) } } : {};
      return { items, found: { sha256, total, count: items.length, ...skippedUnscorable } };
    }),
};
