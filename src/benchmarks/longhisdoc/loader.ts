import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DataFileError } from '../../errors.js';
import { openPageImageCatalog, pageImageProblemsError, pageImagePath, summarisePageImages, type PageImageDocument, type PageImageProblem, type PageImageSummary } from '../../corpus/longhisdoc/pageImages.js';
import { readOcrPages } from '../../corpus/longhisdoc/ocrFile.js';
import type { RegistryEntry } from '../../registry.js';
import { loadLongHisDocQa, LongHisDocRecordSchema, parsePageList, type LongHisDocRecord } from './schema.js';
import { assertKnownFields, assertUniqueIds, metadataGroups, otherFields } from '../recordFields.js';
import { fileBenchmark } from '../fileBenchmark.js';
import { applyBenchmarkFilter } from '../filters.js';
import type { Benchmark, BenchmarkItem } from '../types.js';
import { longHisDocSchema, type LongHisDocParams } from './loaderSchema.js';

export { LongHisDocParamsSchema, type LongHisDocParams } from './loaderSchema.js';

/** Every field of a LongHisDoc release record: the schema's and `备注` (a remark two records carry). */
export const LONGHISDOC_RECORD_FIELDS = [...Object.keys(LongHisDocRecordSchema.shape), '备注'];
const KNOWN_FIELDS = new Set(['doc_id', 'item_id', 'question', 'answer', 'evidence_pages', 'input_pages', 'type', 'answer_type', 'evidence_modal']);

/** The OCR file of a document inside the release's `OCR_res/` folder. */
export function ocrFileFor(ocrDir: string, docId: string): string {
  return join(ocrDir, `${docId}.json`);
}

/** A LongHisDoc record as a BenchmarkItem; `type` is both category and task, pages become numbers. */
export function longHisDocItem(record: LongHisDocRecord, benchmark: string, ocrDir?: string, declared: readonly string[] = []): BenchmarkItem {
  const meta = otherFields(record, KNOWN_FIELDS);
  const groups = metadataGroups(meta, declared);
  if (ocrDir) meta.ocrFile = ocrFileFor(ocrDir, record.doc_id);
  return {
    id: record.item_id,
    benchmark,
    kind: 'longhisdoc',
    question: record.question,
    category: record.type,
    task: record.type,
    answer: record.answer,
    answerType: record.answer_type,
    docId: record.doc_id,
    // The schema has checked both strings already.
    evidencePages: parsePageList(record.evidence_pages)!,
    inputPages: parsePageList(record.input_pages)!,
    evidenceModal: record.evidence_modal,
    ...groups,
    meta,
  };
}

export interface LoadedLongHisDoc {
  items: BenchmarkItem[];
  sha256: string;
  total: number;
  /** With `imageDir`: what the image check found (problems counted by kind). */
  images?: PageImageSummary;
}

export async function loadLongHisDoc(params: LongHisDocParams): Promise<LoadedLongHisDoc> {
  const qa = await loadLongHisDocQa(params.file);
  if (params.ocrDir) {
    const missing = Object.keys(qa).filter((docId) => !existsSync(ocrFileFor(params.ocrDir!, docId)));
    if (missing.length > 0) {
      throw new DataFileError(
        `${params.ocrDir}: no OCR file for ${missing.length} of ${Object.keys(qa).length} documents (e.g. ${ocrFileFor(params.ocrDir, missing[0]!)})`,
      );
    }
  }
  const rules = { format: 'longhisdoc', known: LONGHISDOC_RECORD_FIELDS, declared: params.metadata };
  const positions: { id: string; where: string }[] = [];
  for (const [docId, records] of Object.entries(qa)) {
    records.forEach((record, i) => {
      assertKnownFields(record, rules, `${params.file}: ${docId}[${i}]`);
      positions.push({ id: record.item_id, where: `${docId}[${i}]` });
    });
  }
  assertUniqueIds(positions, params.file);
  const sha256 = createHash('sha256').update(await readFile(params.file)).digest('hex');
  const items = Object.values(qa).flatMap((records) => records.map((record) => longHisDocItem(record, params.label, params.ocrDir, params.metadata)));
  const kept = applyBenchmarkFilter(items, params);
  if (!params.imageDir) return { items: kept, sha256, total: items.length };
  const images = await checkItemImages(kept, params.imageDir, params.onImageProblem, params.ocrDir);
  return { items: kept, sha256, total: items.length, images };
}

/** A book's pages for the image check: its OCR file's count (exact), else the highest page its items name. */
export async function pageImageDocument(docId: string, items: readonly BenchmarkItem[], ocrFile?: string): Promise<PageImageDocument> {
  if (ocrFile) return { docId, pages: (await readOcrPages(ocrFile)).length, exact: true };
  const pages = items.filter((item) => item.docId === docId).flatMap((item) => [...(item.inputPages ?? []), ...(item.evidencePages ?? [])]);
  return { docId, pages: Math.max(0, ...pages), exact: false };
}

/**
 * Checks that every page an item shows or cites has its image; items get `meta.imageDir` and
 * `meta.imageDocument` (the catalog's entry: a strategy opening the catalog with it shares this scan).
 */
async function checkItemImages(items: BenchmarkItem[], imageDir: string, onProblem: 'error' | 'warn', ocrDir?: string): Promise<PageImageSummary> {
  const absolute = resolve(imageDir);
  const docIds = [...new Set(items.map((item) => item.docId!))];
  const documents: PageImageDocument[] = [];
  for (const docId of docIds) documents.push(await pageImageDocument(docId, items, ocrDir && ocrFileFor(ocrDir, docId)));
  const byDocId = new Map(documents.map((doc) => [doc.docId, doc]));
  const catalog = await openPageImageCatalog({ imageDir: absolute, documents, onProblem: 'warn' });
  const itemProblems: PageImageProblem[] = [];
  for (const item of items) {
    const docId = item.docId!;
    const pages = [...new Set([...(item.inputPages ?? []), ...(item.evidencePages ?? [])])].sort((a, b) => a - b);
    // Pages inside the OCR's count are the catalog's to report; a page beyond it has no image by construction.
    const document = byDocId.get(docId)!;
    const beyond = pages.filter((page) => page > document.pages);
    for (const page of beyond) {
      const file = resolve(absolute, pageImagePath(docId, page));
      itemProblems.push({
        kind: 'missing-page',
        docId,
        page,
        file,
        message: `item ${item.id} names page ${page} of document ${docId}, beyond its ${document.pages} OCR pages: no page image (${file})`,
      });
    }
    item.meta.imageDir = absolute;
    item.meta.imageDocument = document;
  }
  const problems = [...catalog.problems, ...itemProblems];
  if (onProblem === 'error' && problems.length > 0) throw pageImageProblemsError(absolute, problems);
  return summarisePageImages(catalog, itemProblems);
}

export const longHisDocBenchmark: RegistryEntry<LongHisDocParams, Benchmark, void> = {
  ...longHisDocSchema,
  create(params) {
    const settings = {
      ...(params.ocrDir ? { ocrDir: resolve(params.ocrDir) } : {}),
      ...(params.imageDir ? { imageDir: resolve(params.imageDir), onImageProblem: params.onImageProblem } : {}),
    };
    return fileBenchmark('longhisdoc', params, settings, async () => {
      const { items, sha256, total, images } = await loadLongHisDoc(params);
      return { items, found: { sha256, total, count: items.length, ...(images ? { images } : {}) } };
    });
  },
};
