import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { InputError } from '../../errors.js';
import type { RegistryEntry } from '../../registry.js';
import { countCodePoints } from '../../chunking/chunker.js';
import { toSimplified } from '../../text/simplify.js';
import type { BuilderContext, BuilderItem, CorpusBuilder } from '../types.js';
import { readDumpPages, type DumpPage } from './dumpPages.js';
import { WikitextParserPool } from './parserPool.js';
import { WIKITEXT_PARSERS, type ParsedArticle } from './wikitextToArticle.js';

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
  /** `pages-articles` dump: `.xml`, `.xml.bz2` or `-multistream.xml.bz2`. */
  input: z.string().min(1),
  namespaces: z.array(z.number().int()).min(1).default([0]),
  skipRedirects: z.boolean().default(true),
  skipDisambiguation: z.boolean().default(true),
  /** Extra disambiguation template names (wtf_wikipedia knows 消歧义, disambig, dab, ...). */
  disambiguationTemplates: z.array(z.string().min(1)).default(DEFAULT_DISAMBIGUATION_TEMPLATES),
  /** Traditional → simplified Chinese on the extracted text (OpenCC t → cn). */
  simplify: z.boolean().default(true),
  dropSections: z.array(z.string()).default(DEFAULT_DROPPED_SECTIONS),
  /** Keep only these titles (traditional or simplified both match). */
  titles: z.array(z.string().min(1)).optional(),
  /** Keep only articles directly in one of these categories (without the `Category:` prefix). */
  categories: z.array(z.string().min(1)).optional(),
  /**
   * Wikitext → text: `fast` (purpose-built prose extractor, ~4× quicker) or `wtf_wikipedia` (its
   * full document model, the earlier path). Both give the same text on zhwiki-style articles.
   */
  parser: z.enum(WIKITEXT_PARSERS).default('fast'),
  /** Drop articles with fewer extracted characters. */
  minLength: z.number().int().nonnegative().default(0),
  /**
   * Parser worker threads; 0 parses in the main thread. Default: one per core — the main thread
   * (XML, chunking, writing) mostly waits on them.
   */
  workers: z.number().int().nonnegative().default(Math.max(1, availableParallelism())),
  /** How .bz2 is decoded: `auto` uses lbzip2/pbzip2/bzip2 when on PATH (faster), else unbzip2-stream (`js`). */
  bz2Decoder: z.enum(['auto', 'js', 'system']).default('auto'),
  /** Article URL prefix; default from the dump's `<siteinfo><base>` (…/wiki/). */
  urlBase: z.string().url().optional(),
});
export type WikipediaDumpParams = z.output<typeof WikipediaDumpParamsSchema>;

type Pending = { page: DumpPage; skip?: string; parsed?: Promise<ParsedArticle> };

/** The Chinese Wikipedia `pages-articles` dump, streamed, parsed in worker threads. */
export const wikipediaDumpBuilder: RegistryEntry<WikipediaDumpParams, CorpusBuilder, BuilderContext> = {
  name: 'wikipedia-dump',
  description: 'MediaWiki XML dump (.xml / .xml.bz2, multistream too) → cleaned article text by section',
  params: WikipediaDumpParamsSchema,
  create(params, context) {
    const path = resolve(context.baseDir, params.input);
    const wantedTitles = params.titles ? new Set(params.titles.flatMap((t) => [t, toSimplified(t)])) : undefined;
    const wantedCategories = params.categories ? new Set(params.categories.map((c) => toSimplified(c))) : undefined;
    return {
      async describeSource() {
        try {
          return { path, bytes: (await stat(path)).size };
        } catch {
          throw new InputError(`${path}: dump file not found`);
        }
      },
      async *items(run) {
        let urlBase = params.urlBase;
        const pool = new WikitextParserPool(params.workers, {
          simplify: params.simplify,
          dropSections: params.dropSections,
          disambiguationTemplates: params.disambiguationTemplates,
          parser: params.parser,
        });
        // Pages in flight, in dump order: enough to keep every worker busy while the XML is read.
        const window: Pending[] = [];
        const maxInFlight = Math.max(8, params.workers * 32);
        const toItem = async (pending: Pending): Promise<BuilderItem> => {
          const { page } = pending;
          if (pending.skip) return { kind: 'skipped', reason: pending.skip, docId: page.id };
          let article: ParsedArticle;
          try {
            article = await pending.parsed!;
          } catch (error) {
            if (pool.failed) throw pool.failed;
            return { kind: 'skipped', reason: 'parseError', docId: page.id };
          }
          if (article.disambiguation && params.skipDisambiguation) return { kind: 'skipped', reason: 'disambiguation', docId: page.id };
          if (wantedCategories && !article.categories.some((c) => wantedCategories.has(toSimplified(c)))) {
            return { kind: 'skipped', reason: 'categoryFilter', docId: page.id };
          }
          const text = article.sections.map((s) => s.text).join('\n\n');
          if (!text.trim()) return { kind: 'skipped', reason: 'empty', docId: page.id };
          if (countCodePoints(text) < params.minLength) return { kind: 'skipped', reason: 'tooShort', docId: page.id };
          const title = params.simplify ? toSimplified(page.title) : page.title;
          const meta: Record<string, unknown> = { pageId: page.id };
          if (urlBase) meta.url = urlBase + encodeURIComponent(page.title.replaceAll(' ', '_'));
          if (title !== page.title) meta.originalTitle = page.title;
          return { kind: 'document', document: { docId: page.id, title, text, meta, sections: article.sections } };
        };
        try {
          let index = 0;
          const pages = readDumpPages(path, {
            onBytes: run.onBytes,
            signal: run.signal,
            bz2Decoder: params.bz2Decoder,
            onSiteBase: (base) => {
              urlBase ??= base.replace(/\/wiki\/.*$/, '/wiki/');
            },
          });
          for await (const page of pages) {
            // Resume: pages consumed by an earlier run are passed over without parsing.
            if (index++ < run.startAt) continue;
            const pending: Pending = { page };
            if (!params.namespaces.includes(page.ns)) pending.skip = 'namespace';
            else if (params.skipRedirects && (page.redirect || /^\s*#(redirect|重定向)/i.test(page.text))) pending.skip = 'redirect';
            else if (wantedTitles && !wantedTitles.has(page.title) && !wantedTitles.has(toSimplified(page.title))) pending.skip = 'titleFilter';
            else pending.parsed = pool.parse(page.text);
            pending.parsed?.catch(() => {}); // awaited in order below; avoid an unhandled rejection meanwhile
            window.push(pending);
            while (window.length >= maxInFlight) yield await toItem(window.shift()!);
          }
          while (window.length > 0) yield await toItem(window.shift()!);
        } finally {
          await pool.close();
        }
      },
    };
  },
};
