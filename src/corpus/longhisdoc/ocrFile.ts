import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { DataFileError, formatZodIssues } from '../../errors.js';
import { parseJsonText } from '../../io/jsonText.js';

/** One OCR page: `punc` is the punctuated text; it may be missing (an empty page). */
const OcrPageSchema = z.looseObject({ punc: z.string().optional() });
/** `OCR_res/<doc_id>.json`: keys are zero-based page indexes ("0", "1", ...). */
const OcrFileSchema = z.record(z.string().regex(/^\d+$/, 'page keys must be zero-based page numbers ("0", "1", ...)'), OcrPageSchema);

export interface OcrPage {
  /** One-based page number (key k ↔ page k + 1). */
  page: number;
  text: string;
  /** True when the page had no `punc` text (or no entry at all between two pages). */
  missing: boolean;
}

/**
 * Reads a LongHisDoc OCR file into pages in page order. A page without `punc`, or a page number
 * skipped between two keys, comes back as an empty page with `missing: true`.
 */
export async function readOcrPages(file: string): Promise<OcrPage[]> {
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch (error) {
    throw new DataFileError(`${file}: cannot read OCR file (${(error as Error).message})`);
  }
  const value = parseJsonText(file, raw);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DataFileError(`${file}: expected an object keyed by zero-based page number`);
  }
  const badKey = Object.keys(value).find((key) => !/^\d+$/.test(key));
  if (badKey !== undefined) {
    throw new DataFileError(`${file}: page key "${badKey}" is not a zero-based page number ("0", "1", ...)`);
  }
  const parsed = OcrFileSchema.safeParse(value);
  if (!parsed.success) throw new DataFileError(`${file}: ${formatZodIssues(parsed.error)}`);
  const byIndex = new Map<number, string | undefined>();
  for (const [key, page] of Object.entries(parsed.data)) byIndex.set(Number(key), page.punc);
  const last = Math.max(-1, ...byIndex.keys());
  const pages: OcrPage[] = [];
  for (let index = 0; index <= last; index++) {
    const text = byIndex.get(index);
    pages.push({ page: index + 1, text: text ?? '', missing: text === undefined });
  }
  return pages;
}
