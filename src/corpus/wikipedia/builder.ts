import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { RegistryEntry } from '../../registry.js';
import { DataFileError, InputError } from '../../errors.js';
import type { BuilderContext, BuilderItem, BuilderRun, ChunkBatch, CorpusBuilder } from '../types.js';
import type { ChunkWorkerPool } from './chunkWorkerPool.js';
import type { DumpPage } from './dumpXml.js';
import type { PageItemSettings } from './pageItem.js';
import { wikipediaDumpSchema, type WikipediaDumpParams } from './builderSchema.js';

export { DEFAULT_DROPPED_SECTIONS, DEFAULT_DISAMBIGUATION_TEMPLATES, WikipediaDumpParamsSchema, defaultWorkers, type WikipediaDumpParams } from './builderSchema.js';

/** The Chinese Wikipedia `pages-articles` dump, streamed, parsed and chunked in worker threads. */
export const wikipediaDumpBuilder: RegistryEntry<WikipediaDumpParams, CorpusBuilder, BuilderContext> = {
  ...wikipediaDumpSchema,
  create(params, context) {
    const path = resolve(context.baseDir, params.input);
    // The builder's params decide a page's fate (the settings' schema keeps its own fields in workers).
    const pageSettings = (urlBase: string | undefined): PageItemSettings => ({ ...params, urlBase });
    // The URL base from <siteinfo><base>, used unless the params name one.
    const dumpReading = (run: BuilderRun) => {
      const site = { urlBase: params.urlBase };
      const onSiteBase = (base: string) => {
        site.urlBase ??= base.replace(/\/wiki\/.*$/, '/wiki/');
      };
      return { site, options: { onBytes: run.onBytes, signal: run.signal, bz2Decoder: params.bz2Decoder, onSiteBase } };
    };
    return {
      tuningParams: ['workers', 'batchBytes', 'bz2Decoder'],
      async inputFiles() {
        return [path];
      },
      async describeSource() {
        try {
          return { path, bytes: (await stat(path)).size };
        } catch {
          throw new InputError(`${path}: dump file not found`);
        }
      },
      // One page at a time in this thread (the runner chunks): for callers with their own size measure.
      async *items(run) {
        const { site, options } = dumpReading(run);
        // The parsers load when pages are read, not when a freshness check asks for the input files.
        const [{ readDumpPages }, { createPageItems }] = await Promise.all([import('./dumpPages.js'), import('./pageItem.js')]);
        let toItem: ((page: DumpPage) => BuilderItem) | undefined;
        let index = 0;
        const pages = readDumpPages(path, options);
        for await (const page of pages) {
          // Resume: pages consumed by an earlier run are passed over without parsing.
          if (index++ < run.startAt) continue;
          toItem ??= createPageItems(pageSettings(site.urlBase));
          yield toItem(page);
        }
      },
      async *chunkBatches(run) {
        const { site, options } = dumpReading(run);
        const [{ readPageBatches }, { ChunkWorkerPool }] = await Promise.all([import('./pageBatches.js'), import('./chunkWorkerPool.js')]);
        const batches = readPageBatches(path, { ...options, batchBytes: params.batchBytes, startAt: run.startAt });
        // Batches in flight, in dump order: two per worker keeps each busy while the next is cut.
        const window: { firstPage: number; pages: number; batch: Promise<ChunkBatch> }[] = [];
        const maxInFlight = Math.max(1, 2 * params.workers);
        let pool: ChunkWorkerPool | undefined;
        const settle = async (pending: (typeof window)[number]): Promise<ChunkBatch> => {
          try {
            return await pending.batch;
          } catch (error) {
            if (pool?.failed) throw pool.failed;
            const where = `pages ${pending.firstPage + 1}–${pending.firstPage + pending.pages} of the dump`;
            throw new DataFileError(`${path}: ${(error as Error).message} (in ${where})`);
          }
        };
        try {
          for await (const pages of batches) {
            // Started at the first batch: the siteinfo (URL base) has been read by then.
            pool ??= await ChunkWorkerPool.open(params.workers, { file: path, page: pageSettings(site.urlBase), corpus: run.corpus, chunking: run.chunking });
            const batch = pool.run(pages.xml, pages.pages);
            batch.catch(() => {}); // awaited in order below; avoid an unhandled rejection meanwhile
            window.push({ firstPage: pages.firstPage, pages: pages.pages, batch });
            while (window.length >= maxInFlight) yield await settle(window.shift()!);
          }
          while (window.length > 0) yield await settle(window.shift()!);
        } finally {
          await pool?.close();
        }
      },
    };
  },
};
