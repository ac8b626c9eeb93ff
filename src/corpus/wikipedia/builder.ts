import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import type { RegistryEntry } from '../../registry.js';
import { DataFileError, InputError } from '../../errors.js';
import type { BuilderContext, BuilderItem, BuilderRun, ChunkBatch, CorpusBuilder } from '../types.js';
import { ChunkWorkerPool } from './chunkWorkerPool.js';
import { readDumpPages } from './dumpPages.js';
import type { DumpPage } from './dumpXml.js';
import { readPageBatches } from './pageBatches.js';
import { createPageItems, type PageItemSettings } from './pageItem.js';
import { WIKITEXT_PARSERS } from './wikitextToArticle.js';

/** Sections that carry no article prose (compared after simplification). */
export const DEFAULT_DROPPED_SECTIONS = [
  '参见', '参考文献', '参考资料', '参考', '参考来源', '参考书目', '来源', '资料来源', '注释', '注解', '脚注', '注释与参考',
  '外部链接', '外部连结', '延伸阅读', '扩展阅读', '相关条目', '相关链接', '参看',
];

/** Templates that mark a disambiguation page (zhwiki's, and the English ones wtf_wikipedia knows). */
export const DEFAULT_DISAMBIGUATION_TEMPLATES = [
  '消歧义', '消歧義', '消除歧义', '消除歧義', '人名消歧义', '人名消歧義', '地名消歧义', '地名消歧義',
  'disambig', 'disamb', 'dab', 'disambiguation', 'geodis', 'hndis',
];

export const WikipediaDumpParamsSchema = z.strictObject({
  input: z.string().min(1).describe('`pages-articles` dump: `.xml`, `.xml.bz2` or `-multistream.xml.bz2`'),
  namespaces: z.array(z.number().int()).min(1).default([0]).describe('Page namespaces kept (0: articles)'),
  skipRedirects: z.boolean().default(true).describe('Skip redirect pages'),
  skipDisambiguation: z.boolean().default(true).describe('Skip disambiguation pages'),
  disambiguationTemplates: z.array(z.string().min(1)).default(DEFAULT_DISAMBIGUATION_TEMPLATES).describe('Extra disambiguation template names (wtf_wikipedia knows 消歧义, disambig, dab, ...)'),
  simplify: z.boolean().default(true).describe('Traditional → simplified Chinese on the extracted text (OpenCC t → cn)'),
  dropSections: z.array(z.string()).default(DEFAULT_DROPPED_SECTIONS).describe('Section titles dropped from each article (references, see also …)'),
  titles: z.array(z.string().min(1)).optional().describe('Keep only these titles (traditional or simplified both match)'),
  categories: z.array(z.string().min(1)).optional().describe('Keep only articles directly in one of these categories (without the `Category:` prefix)'),
  parser: z.enum(WIKITEXT_PARSERS).default('fast').describe('Wikitext → text: `fast` (purpose-built prose extractor, ~4× quicker) or `wtf_wikipedia` (its full document model, the earlier path)'),
  minLength: z.number().int().nonnegative().default(0).describe('Drop articles with fewer extracted characters'),
  workers: z.number().int().nonnegative().default(defaultWorkers()).describe('Worker threads that parse, clean, simplify and chunk batches of pages; 0 does it all in the main thread, which otherwise only reads, cuts batches, deduplicates and writes'),
  batchBytes: z.number().int().positive().default(1 << 20).describe('Bytes of XML handed to a worker at a time (whole pages; at least one page)'),
  bz2Decoder: z.enum(['auto', 'js', 'system']).default('auto').describe('How .bz2 is decoded: `auto` uses lbzip2/pbzip2/bzip2 when on PATH (faster), else unbzip2-stream (`js`)'),
  urlBase: z.string().url().optional().describe('Article URL prefix; default from the dump\'s `<siteinfo><base>` (…/wiki/)'),
});
export type WikipediaDumpParams = z.output<typeof WikipediaDumpParamsSchema>;

/**
 * One worker per core, less one core in eight for the main thread and the bz2 decoder (together ~30% of
 * a build's CPU: on 2 cores, 2 workers build 1.3× faster than 1).
 */
export function defaultWorkers(): number {
  const cores = availableParallelism();
  return Math.max(1, cores - Math.floor(cores / 8));
}

/** The Chinese Wikipedia `pages-articles` dump, streamed, parsed and chunked in worker threads. */
export const wikipediaDumpBuilder: RegistryEntry<WikipediaDumpParams, CorpusBuilder, BuilderContext> = {
  name: 'wikipedia-dump',
  description: 'MediaWiki XML dump (.xml / .xml.bz2, multistream too) → cleaned article text by section',
  params: WikipediaDumpParamsSchema,
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
