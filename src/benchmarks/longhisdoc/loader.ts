import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { DataFileError } from '../../errors.js';
import type { RegistryEntry } from '../../registry.js';
import { loadLongHisDocQa, parsePageList, type LongHisDocRecord } from '../../scoring/longhisdoc/schema.js';
import { applyBenchmarkFilter, BenchmarkFilterSchema, describeFilter } from '../filters.js';
import type { Benchmark, BenchmarkItem } from '../types.js';

export const LongHisDocParamsSchema = BenchmarkFilterSchema.extend({
  /** The QA file `{doc_id: [records]}` (LongHisDoc.json). */
  file: z.string().min(1),
  /** `OCR_res/` of the release: `<doc_id>.json` per document; needed by `longhisdoc-full` and page corpora. */
  ocrDir: z.string().min(1).optional(),
  label: z.string().min(1).default('longhisdoc'),
}).strict();
export type LongHisDocParams = z.infer<typeof LongHisDocParamsSchema>;

const KNOWN_FIELDS = new Set(['doc_id', 'item_id', 'question', 'answer', 'evidence_pages', 'input_pages', 'type', 'answer_type', 'evidence_modal']);

/** The OCR file of a document inside the release's `OCR_res/` folder. */
export function ocrFileFor(ocrDir: string, docId: string): string {
  return join(ocrDir, `${docId}.json`);
}

/** A LongHisDoc record as a BenchmarkItem; `type` is both category and task, pages become numbers. */
export function longHisDocItem(record: LongHisDocRecord, benchmark: string, ocrDir?: string): BenchmarkItem {
  const meta: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (!KNOWN_FIELDS.has(key) && value !== undefined) meta[key] = value;
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
    meta,
  };
}

export async function loadLongHisDoc(params: LongHisDocParams): Promise<{ items: BenchmarkItem[]; sha256: string; total: number }> {
  const qa = await loadLongHisDocQa(params.file);
  if (params.ocrDir) {
    const missing = Object.keys(qa).filter((docId) => !existsSync(ocrFileFor(params.ocrDir!, docId)));
    if (missing.length > 0) {
      throw new DataFileError(
        `${params.ocrDir}: no OCR file for ${missing.length} of ${Object.keys(qa).length} documents (e.g. ${ocrFileFor(params.ocrDir, missing[0]!)})`,
      );
    }
  }
  const sha256 = createHash('sha256').update(await readFile(params.file)).digest('hex');
  const items = Object.values(qa).flatMap((records) => records.map((record) => longHisDocItem(record, params.label, params.ocrDir)));
  return { items: applyBenchmarkFilter(items, params), sha256, total: items.length };
}

export const longHisDocBenchmark: RegistryEntry<LongHisDocParams, Benchmark, void> = {
  name: 'longhisdoc',
  description: 'LongHisDoc QA file ({doc_id: [records]}) with an optional OCR directory.',
  params: LongHisDocParamsSchema,
  create(params) {
    let loaded: { sha256: string; total: number; count: number } | undefined;
    return {
      name: 'longhisdoc',
      async load() {
        const { items, sha256, total } = await loadLongHisDoc(params);
        loaded = { sha256, total, count: items.length };
        return items;
      },
      describe() {
        const { file, ocrDir, label, ...filter } = params;
        return {
          name: 'longhisdoc',
          label,
          file: resolve(file),
          ...(ocrDir ? { ocrDir: resolve(ocrDir) } : {}),
          ...(loaded ?? {}),
          filter: describeFilter({ ...filter }),
        };
      },
    };
  },
};
