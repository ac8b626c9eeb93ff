import { z } from 'zod';
import { DataFileError, formatZodIssues } from '../../errors.js';
import { parseJsonText } from '../../io/jsonText.js';
import { readDataText } from '../readRecords.js';

export const LONGHISDOC_ANSWER_TYPES = ['Str', 'List', 'Int', 'None', 'Bool', 'Enum'] as const;
export type LongHisDocAnswerType = (typeof LONGHISDOC_ANSWER_TYPES)[number];

/** `"[11, 12]"` → `[11, 12]`; null when the text is not a list of positive integers. */
export function parsePageList(text: string): number[] | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(value) || !value.every((page) => Number.isInteger(page) && page > 0)) return null;
  return value as number[];
}

const PageListString = z
  .string()
  .refine((text) => parsePageList(text) !== null, { message: 'expected a list of one-based page numbers such as "[11, 12]"' });

export const LongHisDocGoldSchema = z.union([z.string(), z.array(z.union([z.string(), z.number()]))]);
export type LongHisDocGold = z.infer<typeof LongHisDocGoldSchema>;

/**
 * One record of LongHisDoc's QA file, as released (`evidence_pages` and `input_pages` are
 * strings; `answer` a string, a list, or `无法回答`). Unknown fields (`备注`, `response`,
 * `extracted`, `score` …) are kept.
 */
export const LongHisDocRecordSchema = z.looseObject({
  doc_id: z.string(),
  item_id: z.string(),
  question: z.string(),
  answer: LongHisDocGoldSchema,
  evidence_pages: PageListString,
  input_pages: PageListString,
  type: z.string().min(1),
  answer_type: z.enum(LONGHISDOC_ANSWER_TYPES),
  evidence_modal: z.string(),
  book_name: z.string(),
  guji_type_zh: z.string(),
  guji_type_en: z.string(),
  author_dynasty: z.string().optional(),
  publication_dynasty: z.string().optional(),
});
export type LongHisDocRecord = z.infer<typeof LongHisDocRecordSchema>;

/** The file's outer shape, `{doc_id: [records]}`, before records are checked one by one. */
export const LongHisDocFileShapeSchema = z.record(z.string(), z.array(z.unknown()));
export type LongHisDocFile = Record<string, LongHisDocRecord[]>;

/** Reads and parses the JSON text of a QA file; errors name the file. */
export async function readLongHisDocShape(path: string): Promise<Record<string, unknown[]>> {
  const value = parseJsonText(path, await readDataText(path));
  const shape = LongHisDocFileShapeSchema.safeParse(value);
  if (!shape.success) throw new DataFileError(`${path}: expected {doc_id: [records]}: ${formatZodIssues(shape.error)}`);
  return shape.data;
}

/**
 * Loads a LongHisDoc QA file, validating every record; the first bad record throws a
 * DataFileError naming `file: <doc_id>[index].field`.
 */
export async function loadLongHisDocQa(path: string): Promise<LongHisDocFile> {
  const shape = await readLongHisDocShape(path);
  const out: LongHisDocFile = {};
  for (const [docId, records] of Object.entries(shape)) {
    out[docId] = records.map((record, index) => {
      const parsed = LongHisDocRecordSchema.safeParse(record);
      if (!parsed.success) throw new DataFileError(`${path}: ${formatZodIssues(parsed.error, `${docId}[${index}]`)}`);
      return parsed.data;
    });
  }
  return out;
}
