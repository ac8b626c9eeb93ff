import { z } from 'zod';
import { DataFileError } from '../errors.js';
import { levenshtein } from '../text/levenshtein.js';
import { readRecordFile, type RawRecord } from './readRecords.js';
import type { BenchmarkItem } from './types.js';

/**
 * A benchmark's `metadata:` param: record fields of the user's own that are kept (in `meta`) and
 * become groups of the breakdowns. Any other field a format does not know is refused, so that a
 * misspelt field (`gold_chunk_id`) never passes silently.
 */
export const MetadataFieldsSchema = z.array(z.string().min(1)).default([]).describe('Your own record fields to keep (they become groups of the breakdowns); any other unknown field is refused');

/** The nearest of `candidates` to a misspelt `name` (a few edits, or one a prefix of the other), if any is near. */
export function nearestName(name: string, candidates: readonly string[]): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = levenshtein(name.toLowerCase(), candidate.toLowerCase());
    const near = distance <= Math.max(1, Math.floor(Math.min(name.length, candidate.length) / 3)) || candidate.startsWith(name) || name.startsWith(candidate);
    if (near && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

export interface RecordFieldRules {
  /** The format's name, for the message (`jsonl`, `prohist`, `longhisdoc`). */
  format: string;
  /** Fields the format reads or keeps as its release's metadata. */
  known: readonly string[];
  /** The benchmark's `metadata:` list. */
  declared: readonly string[];
  /** How else one keeps a field of one's own, besides `metadata:` (the jsonl format's `metadata` object). */
  alsoKeepBy?: string;
}

/** Refuses a record field the format does not know and the config does not declare: file, position, field and a "did you mean". */
export function assertKnownFields(value: unknown, rules: RecordFieldRules, where: string): void {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return;
  for (const field of Object.keys(value)) {
    if (rules.known.includes(field) || rules.declared.includes(field)) continue;
    const near = nearestName(field, rules.known);
    throw new DataFileError(
      `${where}: ${field}: unknown field of a ${rules.format} benchmark record` +
        (near ? ` (did you mean "${near}"?)` : '') +
        `; to keep a field of your own, list it in the benchmark's \`metadata: [${field}]\`${rules.alsoKeepBy ? ` or ${rules.alsoKeepBy}` : ''} (known fields: ${rules.known.join(', ')})`,
    );
  }
}

/** A record's fields that the format does not read into the item: the item's `meta`. */
export function otherFields(record: object, known: ReadonlySet<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key, value]) => !known.has(key) && value !== undefined));
}

/** The declared metadata fields' scalar values as the item's `groups` (breakdown keys of the summary), if any. */
export function metadataGroups(meta: Record<string, unknown>, declared: readonly string[]): { groups?: Record<string, string> } {
  const scalar = (value: unknown) => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
  const groups = Object.fromEntries(declared.filter((field) => scalar(meta[field])).map((field) => [field, String(meta[field])]));
  return Object.keys(groups).length ? { groups } : {};
}

/** Refuses a second record with the same id, naming the file and both positions. */
export function assertUniqueIds(records: { id: string; where: string }[], path: string): void {
  const first = new Map<string, string>();
  for (const { id, where } of records) {
    const earlier = first.get(id);
    if (earlier !== undefined) throw new DataFileError(`${path}: ${where}: id "${id}" appears twice (first at ${earlier}); ids must be unique`);
    first.set(id, where);
  }
}

/**
 * The items of a record file: each record's fields checked against the format's, then made an item
 * by `toItem` (undefined leaves the record out) with its `origin`; ids must be unique.
 */
export async function readRecordItems(
  file: string,
  rules: RecordFieldRules,
  toItem: (record: RawRecord) => BenchmarkItem | undefined,
): Promise<{ items: BenchmarkItem[]; sha256: string }> {
  const { records, sha256 } = await readRecordFile(file);
  const items: BenchmarkItem[] = [];
  const positions: { id: string; where: string }[] = [];
  for (const record of records) {
    assertKnownFields(record.value, rules, `${file}: ${record.where}`);
    const item = toItem(record);
    if (!item) continue;
    items.push({ ...item, origin: `${file}: ${record.where}` });
    positions.push({ id: item.id, where: record.where });
  }
  assertUniqueIds(positions, file);
  return { items, sha256 };
}
