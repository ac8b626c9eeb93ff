import { z } from 'zod';
import { seededRandom, shuffled } from '../retrieval/seededRandom.js';
import type { BenchmarkItem } from './types.js';

const stringList = z.array(z.string().min(1)).min(1);

/**
 * Which items of a benchmark to run, shared by every loader. Each list keeps items whose field
 * equals one of its values; lists combine with AND. Then `sample` draws that many items with
 * `seed` (kept in file order), then `limit` keeps the first n.
 */
export const BenchmarkFilterSchema = z.object({
  categories: stringList.optional().describe('Keep items of these source categories (`名词解释`, `Single Page` …)'),
  tasks: stringList.optional().describe('Keep items of these ProHist tasks (`T1`..`T4`, `MCQ`) or LongHisDoc types'),
  // The same field as `tasks` there.
  types: stringList.optional().describe('Keep items of these LongHisDoc types (`Single Page`, `Cross Pages`, `Multi Hop`, `Unanswerable`)'),
  difficulties: z.array(z.union([z.string(), z.number()])).min(1).optional().describe('`level_of_difficulty`, compared as text (1 and "1" match)'),
  dynasties: stringList.optional().describe('Keep items whose `dynasty`, `author_dynasty` or `publication_dynasty` is one of these'),
  answerTypes: z.array(z.enum(['Str', 'List', 'Int', 'None', 'Bool', 'Enum'])).min(1).optional().describe('Keep items of these LongHisDoc answer types'),
  evidenceModals: z.array(z.string()).min(1).optional().describe('Keep items whose evidence is of one of these modalities (LongHisDoc `evidence_modal`)'),
  docIds: stringList.optional().describe('Keep items of these documents (LongHisDoc volumes)'),
  ids: stringList.optional().describe('Keep only the items with these ids'),
  sample: z.number().int().positive().optional().describe('Draw this many items at random (with `seed`), kept in file order'),
  seed: z.number().int().default(0).describe('Seed of the `sample` draw'),
  limit: z.number().int().positive().optional().describe('Keep the first n items (after the filters and `sample`)'),
});
export type BenchmarkFilter = z.infer<typeof BenchmarkFilterSchema>;

const DYNASTY_FIELDS = ['dynasty', 'author_dynasty', 'publication_dynasty'];

function matches(item: BenchmarkItem, filter: BenchmarkFilter): boolean {
  const inList = (list: readonly string[] | undefined, value: string | undefined) => !list || (value !== undefined && list.includes(value));
  if (!inList(filter.categories, item.category)) return false;
  if (!inList(filter.tasks, item.task)) return false;
  if (!inList(filter.types, item.task)) return false;
  if (!inList(filter.answerTypes, item.answerType)) return false;
  if (!inList(filter.evidenceModals, item.evidenceModal)) return false;
  if (!inList(filter.docIds, item.docId)) return false;
  if (!inList(filter.ids, item.id)) return false;
  if (filter.difficulties) {
    const level = item.meta.level_of_difficulty;
    if (level === undefined || !filter.difficulties.map(String).includes(String(level))) return false;
  }
  if (filter.dynasties) {
    const values = DYNASTY_FIELDS.map((field) => item.meta[field]).filter((v): v is string => typeof v === 'string');
    if (!values.some((v) => filter.dynasties!.includes(v))) return false;
  }
  return true;
}

/** Applies the filters, the seeded sample and the limit; deterministic for a given seed. */
export function applyBenchmarkFilter(items: BenchmarkItem[], filter: BenchmarkFilter): BenchmarkItem[] {
  let kept = items.filter((item) => matches(item, filter));
  if (filter.sample !== undefined && filter.sample < kept.length) {
    const order = shuffled(seededRandom(filter.seed, 'benchmark-sample'), kept.map((_, i) => i));
    const chosen = new Set(order.slice(0, filter.sample));
    kept = kept.filter((_, i) => chosen.has(i));
  }
  if (filter.limit !== undefined) kept = kept.slice(0, filter.limit);
  return kept;
}

/** The filter fields that were set, for run manifests. */
export function describeFilter(filter: BenchmarkFilter): Record<string, unknown> {
  return Object.fromEntries(Object.entries(filter).filter(([key, value]) => value !== undefined && !(key === 'seed' && filter.sample === undefined)));
}
