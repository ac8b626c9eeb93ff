import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { z } from 'zod';
import { DataFileError, formatZodIssues } from '../../errors.js';
import type { RegistryEntry } from '../../registry.js';
import { toSimplified } from '../../text/simplify.js';
import { listInputFiles } from '../inputFiles.js';
import type { SourceDocument } from '../../chunking/types.js';
import type { BuilderContext, CorpusBuilder } from '../types.js';
import { readOcrPages } from './ocrFile.js';
import { describePageImageProblems, openPageImageCatalog, type PageImageCatalog } from './pageImages.js';
import { longhisdocOcrSchema, type LonghisdocOcrParams } from './builderSchema.js';

export { LonghisdocOcrParamsSchema, type LonghisdocOcrParams } from './builderSchema.js';

const QaRecordSchema = z.looseObject({
  book_name: z.string().optional(),
  guji_type_zh: z.string().optional(),
  guji_type_en: z.string().optional(),
  author_dynasty: z.string().optional(),
  publication_dynasty: z.string().optional(),
});
const QaFileSchema = z.record(z.string(), z.array(QaRecordSchema));
const META_FIELDS = ['book_name', 'guji_type_zh', 'guji_type_en', 'author_dynasty', 'publication_dynasty'] as const;

/**
 * LongHisDoc page OCR → one document per page (docId = the book's `<doc_id>`, so retrieval can be
 * scoped to one book; chunk ids `<corpus>:<doc_id>-p<page>:0`; meta.page one-based)
 * and optional page windows (meta.pages). Empty pages are kept (no chunk) and counted as `emptyPages`.
 */
export const longhisdocOcrBuilder: RegistryEntry<LonghisdocOcrParams, CorpusBuilder, BuilderContext> = {
  ...longhisdocOcrSchema,
  create(params, context) {
    const filesPromise = listInputFiles(context.baseDir, params.input, /\.json$/i);
    const imageDir = params.imageDir ? resolve(context.baseDir, params.imageDir) : undefined;
    return {
      // Pages are the evidence units of LongHisDoc retrieval: two pages with the same text stay two pages.
      dedupeByDefault: false,
      async inputFiles() {
        return [...(await filesPromise).map((file) => file.path), ...(params.qaFile ? [resolve(context.baseDir, params.qaFile)] : [])];
      },
      async describeSource() {
        const files = await filesPromise;
        return { path: files.length === 1 ? files[0]!.path : resolve(context.baseDir, String(params.input)), bytes: files.reduce((s, f) => s + f.bytes, 0) };
      },
      manifestFields() {
        return imageDir ? { imageDir } : {};
      },
      async *items(run) {
        const bookMeta = params.qaFile ? await readBookMeta(resolve(context.baseDir, params.qaFile)) : new Map<string, Record<string, string>>();
        const wanted = params.docIds ? new Set(params.docIds) : undefined;
        // Every image is checked before the first document is yielded, so a broken folder stops the build before it writes anything.
        const images = imageDir ? await openImages(imageDir, await filesPromise, wanted, params.onImageProblem) : undefined;
        let index = 0;
        let bytesDone = 0;
        for (const file of await filesPromise) {
          const docId = basename(file.path).replace(/\.json$/i, '');
          bytesDone += file.bytes;
          if (wanted && !wanted.has(docId)) continue;
          const pages = await readOcrPages(file.path);
          const base: Record<string, string> = { doc_id: docId, ...bookMeta.get(docId) };
          const clean = (text: string) => (params.simplify ? toSimplified(text) : text);
          const imageOf = (page: number) => {
            const ref = images?.image(docId, page);
            return ref ? { path: ref.path, width: ref.width, height: ref.height, bytes: ref.bytes } : undefined;
          };
          const windowImages = (span: typeof pages) =>
            span.flatMap((p) => {
              const image = imageOf(p.page);
              return image ? [{ page: p.page, ...image }] : [];
            });
          const documents: (() => SourceDocument)[] = pages.map((p) => () => {
            if (p.missing) run.count?.('emptyPages');
            const image = imageOf(p.page);
            if (images && !image) run.count?.('pagesWithoutImage');
            return {
              docId,
              idKey: `${docId}-p${p.page}`,
              title: base.book_name ?? docId,
              text: clean(p.text),
              meta: { ...base, page: p.page, pages: [p.page], ...(image ? { image } : {}) },
            };
          });
          if (params.windows) {
            const { size, stride } = params.windows;
            for (let start = 0; start + size <= pages.length; start += stride) {
              const span = pages.slice(start, start + size);
              documents.push(() => {
                // The window's text joins its pages' (empty ones left out); chunk spans point into the pages.
                const parts: { doc: string; start: number; end: number }[] = [];
                let text = '';
                for (const p of span) {
                  const page = clean(p.text);
                  if (!page) continue;
                  if (text) text += '\n';
                  parts.push({ doc: `${docId}-p${p.page}`, start: text.length, end: text.length + page.length });
                  text += page;
                }
                return {
                  docId,
                  idKey: `${docId}-p${span[0]!.page}-${span[span.length - 1]!.page}`,
                  title: base.book_name ?? docId,
                  text,
                  parts,
                  meta: {
                    ...base,
                    page: span[0]!.page,
                    pages: span.map((p) => p.page),
                    window: size,
                    // The usable images of the window's pages (a page without one is counted once, as a page document).
                    ...(images ? { images: windowImages(span) } : {}),
                  },
                };
              });
            }
          }
          for (const make of documents) {
            if (index++ < run.startAt) continue;
            yield { kind: 'document', document: make() };
          }
          run.onBytes?.(bytesDone);
          if (run.signal?.aborted) return;
        }
      },
    };
  },
};

/** The catalog of the wanted documents' page images, page counts from their OCR files. */
async function openImages(imageDir: string, files: { path: string }[], wanted: Set<string> | undefined, onProblem: 'error' | 'warn'): Promise<PageImageCatalog> {
  const documents = [];
  for (const file of files) {
    const docId = basename(file.path).replace(/\.json$/i, '');
    if (wanted && !wanted.has(docId)) continue;
    documents.push({ docId, pages: (await readOcrPages(file.path)).length });
  }
  const catalog = await openPageImageCatalog({ imageDir, documents, onProblem });
  if (catalog.problems.length > 0) {
    process.stderr.write(`longhisdoc-ocr: ${describePageImageProblems(imageDir, catalog.problems)}; those pages have no meta.image\n`);
  }
  return catalog;
}

async function readBookMeta(path: string): Promise<Map<string, Record<string, string>>> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new DataFileError(`${path}: cannot read the LongHisDoc QA file (${(error as Error).message})`);
  }
  const parsed = QaFileSchema.safeParse(value);
  if (!parsed.success) throw new DataFileError(`${path}: ${formatZodIssues(parsed.error)}`);
  const out = new Map<string, Record<string, string>>();
  for (const [docId, records] of Object.entries(parsed.data)) {
    const meta: Record<string, string> = {};
    for (const record of records) {
      for (const field of META_FIELDS) {
        const value = record[field];
        if (value && !meta[field]) meta[field] = value;
      }
    }
    out.set(docId, meta);
  }
  return out;
}
