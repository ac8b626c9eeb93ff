import pRetry, { AbortError } from 'p-retry';
import wiki from 'wikijs';
import { z } from 'zod';
import type { RegistryEntry } from '../../registry.js';
import { toSimplified } from '../../text/simplify.js';
import type { BuilderContext, BuilderItem, CorpusBuilder } from '../types.js';
import { DEFAULT_DROPPED_SECTIONS } from '../wikipedia/builder.js';
import { extractToSections } from './extractSections.js';
import { createThrottle } from './throttle.js';

const CategorySpec = z.strictObject({
  /** Category name, with or without the `Category:` prefix. */
  name: z.string().min(1),
  /** 0: the category's own pages; 1: and its subcategories' pages; ... */
  depth: z.number().int().nonnegative().default(1),
});

export const MediawikiApiParamsSchema = z
  .strictObject({
    apiUrl: z.string().url().default('https://zh.wikipedia.org/w/api.php'),
    titles: z.array(z.string().min(1)).optional(),
    search: z.strictObject({ query: z.string().min(1), limit: z.number().int().positive().max(500).default(50) }).optional(),
    categories: z.array(CategorySpec).optional(),
    /** Stop after this many pages in all. */
    maxPages: z.number().int().positive().optional(),
    /** At least this long between two API calls. */
    minIntervalMs: z.number().int().nonnegative().default(200),
    /** Retries per call on network errors and 5xx/429 answers (exponential backoff). */
    retries: z.number().int().nonnegative().default(3),
    userAgent: z.string().min(1).default('hisrag/0.1 (corpus builder for research; https://github.com/)'),
    simplify: z.boolean().default(true),
    skipDisambiguation: z.boolean().default(true),
    dropSections: z.array(z.string()).default(DEFAULT_DROPPED_SECTIONS),
  })
  .refine((p) => p.titles || p.search || p.categories, { message: 'give titles, search or categories', path: ['titles'] });
export type MediawikiApiParams = z.output<typeof MediawikiApiParamsSchema>;

/** What hisrag uses of wikijs (its typings declare only `Object`). */
interface WikiClient {
  page(title: string): Promise<WikiPage>;
  search(query: string, limit: number): Promise<{ results: string[] }>;
  pagesInCategory(category: string): Promise<string[]>;
}
interface WikiPage {
  pageid: number;
  title: string;
  fullurl?: string;
  canonicalurl?: string;
  pageprops?: Record<string, string>;
  rawContent(): Promise<string | undefined>;
}

const CATEGORY_PREFIX = /^(category|分类|分類)\s*:\s*/i;
// Members of a category that are neither articles nor subcategories (templates, files, talk pages ...).
const OTHER_NAMESPACE = /^(template|模板|file|文件|image|wikipedia|portal|主题|help|帮助|user|用户|talk|讨论|module|模块|draft|草稿)\s*:/i;

/** A topic corpus from the MediaWiki API (wikijs): page titles, a search query or a category crawl. */
export const mediawikiApiBuilder: RegistryEntry<MediawikiApiParams, CorpusBuilder, BuilderContext> = {
  name: 'mediawiki-api',
  description: 'MediaWiki API (wikijs): pages by title, search query or category crawl with a depth limit',
  params: MediawikiApiParamsSchema,
  create(params) {
    const client = (wiki as unknown as (options: object) => WikiClient)({
      apiUrl: params.apiUrl,
      headers: { 'User-Agent': params.userAgent },
    });
    const throttle = createThrottle(params.minIntervalMs);
    const call = <T>(what: string, fn: () => Promise<T>) =>
      pRetry(() => throttle(fn).catch((error: Error) => {
        // wikijs reports HTTP failures as "<status>: <text>"; only transient ones are retried.
        const status = Number(/^(\d{3}):/.exec(error.message)?.[1]);
        if (status && status !== 429 && status < 500) throw new AbortError(`${what}: ${error.message}`);
        if (/No article found/.test(error.message)) throw new AbortError(error.message);
        throw error;
      }), { retries: params.retries, minTimeout: Math.max(50, params.minIntervalMs), factor: 2 });
    const convert = params.simplify ? toSimplified : (text: string) => text;

    /** Titles in a fixed order: given titles, search hits, then the category crawl (breadth first). */
    async function listTitles(): Promise<string[]> {
      const titles: string[] = [...(params.titles ?? [])];
      if (params.search) titles.push(...(await call('search', () => client.search(params.search!.query, params.search!.limit))).results);
      for (const spec of params.categories ?? []) {
        const seen = new Set<string>();
        let frontier = [`Category:${spec.name.replace(CATEGORY_PREFIX, '')}`];
        for (let depth = 0; depth <= spec.depth && frontier.length > 0; depth++) {
          const next: string[] = [];
          for (const category of frontier) {
            if (seen.has(category)) continue;
            seen.add(category);
            for (const member of await call(`category ${category}`, () => client.pagesInCategory(category))) {
              if (CATEGORY_PREFIX.test(member)) next.push(`Category:${member.replace(CATEGORY_PREFIX, '')}`);
              else titles.push(member);
            }
          }
          frontier = next;
        }
      }
      const unique = [...new Set(titles)];
      return params.maxPages ? unique.slice(0, params.maxPages) : unique;
    }

    async function fetchItem(title: string): Promise<BuilderItem> {
      if (OTHER_NAMESPACE.test(title)) return { kind: 'skipped', reason: 'namespace', docId: title };
      let page: WikiPage;
      try {
        page = await call(`page ${title}`, () => client.page(title));
      } catch (error) {
        if (/No article found/.test((error as Error).message)) return { kind: 'skipped', reason: 'missing', docId: title };
        throw error;
      }
      if (params.skipDisambiguation && page.pageprops && 'disambiguation' in page.pageprops) {
        return { kind: 'skipped', reason: 'disambiguation', docId: String(page.pageid) };
      }
      const extract = (await call(`content ${title}`, () => page.rawContent())) ?? '';
      const sections = extractToSections(extract, params.dropSections, convert);
      if (sections.length === 0) return { kind: 'skipped', reason: 'empty', docId: String(page.pageid) };
      const docTitle = convert(page.title);
      const meta: Record<string, unknown> = { pageId: String(page.pageid) };
      const url = page.canonicalurl ?? page.fullurl;
      if (url) meta.url = url;
      if (docTitle !== page.title) meta.originalTitle = page.title;
      return {
        kind: 'document',
        document: { docId: String(page.pageid), title: docTitle, text: sections.map((s) => s.text).join('\n\n'), meta, sections },
      };
    }

    return {
      async describeSource() {
        return { path: params.apiUrl };
      },
      async *items(run) {
        const titles = await listTitles();
        for (let i = run.startAt; i < titles.length; i++) {
          if (run.signal?.aborted) return;
          yield await fetchItem(titles[i]!);
        }
      },
    };
  },
};
