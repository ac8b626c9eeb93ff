import { resolve } from 'node:path';
import type { BenchmarkItem } from '../benchmarks/types.js';
import { z } from 'zod';
import { openPageImageCatalog, type PageImageCatalog, type PageImageDocument } from '../corpus/longhisdoc/pageImages.js';
import { InputError } from '../errors.js';
import type { PageImageRef } from './types.js';

/** Where an item's page images are: a strategy's own `imageDir`, else the one the longhisdoc benchmark gave the item. */
export function imageDirOf(item: BenchmarkItem, override: string | undefined, strategy: string): string {
  const dir = override ?? (typeof item.meta.imageDir === 'string' ? item.meta.imageDir : undefined);
  if (!dir) {
    throw new InputError(
      `strategy "${strategy}": item ${item.id} has no page images; give the longhisdoc benchmark \`imageDir\` (its LongHisDoc_IMG folder) or the strategy \`imageDir\``,
    );
  }
  return resolve(dir);
}

const PageImageDocumentSchema = z.object({ docId: z.string(), pages: z.number().int().nonnegative(), exact: z.boolean().optional() });

/**
 * The page images of the run's documents, looked up by (document, page). The folders were checked
 * by the benchmark loader before any call (problems refused or counted there); the catalog is the
 * same scan, shared within the process (the loader leaves the document entry it used on each item).
 */
export class PageImageLookup {
  private readonly catalogs = new Map<string, PageImageCatalog>();

  constructor(private readonly strategy: string, private readonly imageDir?: string) {}

  async prepare(items: BenchmarkItem[]): Promise<void> {
    const documents = new Map<string, Map<string, PageImageDocument>>();
    for (const item of items) {
      if (item.kind !== 'longhisdoc' || !item.docId) continue;
      const dir = imageDirOf(item, this.imageDir, this.strategy);
      const docs = documents.get(dir) ?? new Map<string, PageImageDocument>();
      documents.set(dir, docs);
      if (docs.has(item.docId)) continue;
      // The loader opened the catalog with this document entry: the same entry shares its scan.
      const fromLoader = PageImageDocumentSchema.safeParse(item.meta.imageDocument);
      if (fromLoader.success && resolve(String(item.meta.imageDir)) === dir) docs.set(item.docId, fromLoader.data);
      else docs.set(item.docId, await (await import('../benchmarks/longhisdoc/loader.js')).pageImageDocument(item.docId, items, typeof item.meta.ocrFile === 'string' ? item.meta.ocrFile : undefined));
    }
    for (const [dir, docs] of documents) {
      if (this.catalogs.has(dir)) continue;
      this.catalogs.set(dir, await openPageImageCatalog({ imageDir: dir, documents: [...docs.values()], onProblem: 'warn' }));
    }
  }

  /** The image of one page of the item's book (undefined where the folder has none: a problem the loader counted). */
  image(item: BenchmarkItem, docId: string, page: number): PageImageRef | undefined {
    const dir = imageDirOf(item, this.imageDir, this.strategy);
    const catalog = this.catalogs.get(dir);
    if (!catalog) throw new Error(`strategy "${this.strategy}": page images of ${dir} were not loaded; await strategy.prepare(items) before build`);
    return catalog.image(docId, page);
  }
}
