import { z } from 'zod';
import { InputError } from '../../errors.js';
import type { RegistryEntry } from '../../registry.js';
import { toSimplified } from '../../text/simplify.js';
import type { DocumentSection } from '../../chunking/types.js';
import type { BuilderContext, BuilderItem, CorpusBuilder } from '../types.js';
import { wikitextToArticle } from '../wikipedia/wikitextToArticle.js';
import { MediawikiApiClient, type ApiResponse } from './apiClient.js';
import { extractToSections } from './extractSections.js';
import { mediawikiApiSchema, type MediawikiApiParams } from './builderSchema.js';

export { MediawikiApiParamsSchema, type MediawikiApiParams } from './builderSchema.js';

const CATEGORY_PREFIX = /^(category|分类|分類)\s*:\s*/i;
const CATEGORY_NAMESPACE = 14;

/** One page as `action=query` (formatversion 2) describes it. */
const ApiPageSchema = z.looseObject({
  pageid: z.number().optional(),
  ns: z.number(),
  title: z.string(),
  missing: z.boolean().optional(),
  invalid: z.boolean().optional(),
  invalidreason: z.string().optional(),
  contentmodel: z.string().optional(),
  fullurl: z.string().optional(),
  canonicalurl: z.string().optional(),
  pageprops: z.record(z.string(), z.unknown()).optional(),
  extract: z.string().optional(),
  templates: z.array(z.looseObject({ title: z.string() })).optional(),
  revisions: z
    .array(z.looseObject({ slots: z.looseObject({ main: z.looseObject({ content: z.string().optional(), contentmodel: z.string().optional() }) }).optional(), content: z.string().optional() }))
    .optional(),
});
type ApiPage = z.infer<typeof ApiPageSchema>;
const QuerySchema = z.looseObject({
  normalized: z.array(z.looseObject({ from: z.string(), to: z.string() })).optional(),
  redirects: z.array(z.looseObject({ from: z.string(), to: z.string() })).optional(),
  pages: z.array(ApiPageSchema).optional(),
  search: z.array(z.looseObject({ ns: z.number(), title: z.string() })).optional().describe('Fetch the pages a full-text search finds: `{ query, limit }`'),
  categorymembers: z.array(z.looseObject({ ns: z.number(), title: z.string() })).optional(),
});

function queryOf(response: ApiResponse, what: string): z.infer<typeof QuerySchema> {
  if (response.query === undefined) return {};
  const parsed = QuerySchema.safeParse(response.query);
  if (!parsed.success) throw new InputError(`${what}: unexpected API answer (${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message})`);
  return parsed.data;
}

/**
 * A topic corpus from any MediaWiki's Action API: pages by title, search query or category crawl.
 * Text comes from the page wikitext (same parser as the dump builder, so a page gives the same
 * chunks from a dump or the API), or optionally from TextExtracts.
 */
export const mediawikiApiBuilder: RegistryEntry<MediawikiApiParams, CorpusBuilder, BuilderContext> = {
  ...mediawikiApiSchema,
  create(params) {
    const convert = params.simplify ? toSimplified : (text: string) => text;
    const reading = { params, convert, disambiguationTemplates: new Set(params.disambiguationTemplates.map((t) => normalizeTitle(t))) };

    return {
      async describeSource() {
        return { path: params.apiUrl };
      },
      async *items(run) {
        const client = new MediawikiApiClient({
          ...params,
          onWarning: (warning) => {
            process.stderr.write(`mediawiki-api: API warning from ${params.apiUrl} (${warning.module ?? 'main'}, ${warning.code}): ${warning.text}\n`);
            if (params.source === 'extracts' && warning.code === 'unrecognizedvalues' && /extracts/.test(warning.text)) {
              throw new InputError(
                `mediawiki-api: ${params.apiUrl} does not know prop=extracts (the TextExtracts extension is not installed there): ` +
                  'use source: wikitext (the default), which works on any MediaWiki',
              );
            }
          },
        });
        let warningsCounted = 0;
        const countWarnings = () => {
          if (client.warnings > warningsCounted) run.count?.('apiWarnings', client.warnings - warningsCounted);
          warningsCounted = client.warnings;
        };

        const titles = await listTitles(client, params, run.signal);
        countWarnings();
        if (titles.length === 0) {
          throw new InputError(`mediawiki-api: ${params.apiUrl} listed no pages for ${describeSelection(params)}`);
        }
        const skipped: Record<string, number> = {};
        let documents = 0;
        const batchSize = params.source === 'extracts' ? 1 : params.batchSize;
        const seenPages = new Set<string>();
        for (let start = run.startAt; start < titles.length; start += batchSize) {
          if (run.signal?.aborted) return;
          const batch = titles.slice(start, start + batchSize);
          const fetched = await fetchPages(client, params, batch, run.signal);
          countWarnings();
          for (const title of batch) {
            const item = toItem(title, fetched, seenPages, reading);
            if (item.kind === 'skipped') skipped[item.reason] = (skipped[item.reason] ?? 0) + 1;
            else documents++;
            yield item;
          }
        }
        if (documents === 0 && run.startAt === 0) {
          const reasons = Object.entries(skipped).map(([reason, n]) => `${reason} ${n}`).join(', ');
          const hint = skipped.empty
            ? params.source === 'extracts'
              ? ' — the wiki answered prop=extracts without text: use source: wikitext (the default)'
              : ' — the pages have no prose after cleaning (only templates, tables or lists?)'
            : '';
          throw new InputError(`mediawiki-api: ${params.apiUrl}: ${titles.length} page(s) listed for ${describeSelection(params)}, none gave any text (skipped: ${reasons})${hint}`);
        }
      },
    };
  },
};

/** The params and what create() derives from them once, for turning pages into documents. */
interface PageReading { params: MediawikiApiParams; convert: (text: string) => string; disambiguationTemplates: Set<string> }

/** Titles in a fixed order: given titles, search hits, then the category crawl (breadth first). */
async function listTitles(client: MediawikiApiClient, params: MediawikiApiParams, signal?: AbortSignal): Promise<string[]> {
  const titles: string[] = [...(params.titles ?? [])];
  if (params.search) {
    const { query, limit } = params.search;
    const hits: string[] = [];
    for await (const response of client.continued({ action: 'query', list: 'search', srsearch: query, srnamespace: params.namespaces.join('|'), srlimit: Math.min(limit, 500), srprop: '' }, signal)) {
      hits.push(...(queryOf(response, `search "${query}"`).search ?? []).map((hit) => hit.title));
      if (hits.length >= limit) break;
    }
    titles.push(...hits.slice(0, limit));
  }
  for (const spec of params.categories ?? []) {
    const seen = new Set<string>();
    let frontier = [`Category:${spec.name.replace(CATEGORY_PREFIX, '')}`];
    for (let depth = 0; depth <= spec.depth && frontier.length > 0; depth++) {
      const next: string[] = [];
      for (const category of frontier) {
        if (seen.has(category)) continue;
        seen.add(category);
        for await (const response of client.continued({ action: 'query', list: 'categorymembers', cmtitle: category, cmlimit: 'max', cmprop: 'title' }, signal)) {
          for (const member of queryOf(response, `category ${category}`).categorymembers ?? []) {
            if (member.ns === CATEGORY_NAMESPACE) next.push(`Category:${member.title.replace(/^[^:]+:/, '')}`);
            else titles.push(member.title);
          }
        }
      }
      frontier = next;
    }
  }
  const unique = [...new Set(titles)];
  return params.maxPages ? unique.slice(0, params.maxPages) : unique;
}

/** The batch's pages by asked title (after normalisation and redirects), continuation merged. */
async function fetchPages(client: MediawikiApiClient, params: MediawikiApiParams, batch: string[], signal?: AbortSignal): Promise<Map<string, ApiPage | undefined>> {
  const request: Record<string, string | number> = {
    action: 'query',
    titles: batch.join('|'),
    redirects: 1,
    prop: params.source === 'extracts' ? 'extracts|info|pageprops|templates' : 'revisions|info|pageprops|templates',
    inprop: 'url',
    tllimit: 'max',
    tltemplates: [...params.disambiguationTemplates].map((t) => `Template:${t}`).join('|'),
  };
  if (params.source === 'extracts') Object.assign(request, { explaintext: 1, exsectionformat: 'wiki', exlimit: 1 });
  else Object.assign(request, { rvprop: 'content', rvslots: 'main' });
  const byTitle = new Map<string, ApiPage>();
  const renamed = new Map<string, string>();
  for await (const response of client.continued(request, signal)) {
    const query = queryOf(response, `pages ${batch.join('|')}`);
    for (const { from, to } of [...(query.normalized ?? []), ...(query.redirects ?? [])]) renamed.set(from, to);
    for (const page of query.pages ?? []) {
      const known = byTitle.get(page.title);
      if (!known) byTitle.set(page.title, page);
      else {
        // A continued answer adds what the earlier one left out (revisions, templates, extract).
        for (const [key, value] of Object.entries(page)) {
          if (Array.isArray(value) && Array.isArray(known[key])) (known[key] as unknown[]).push(...value);
          else if (known[key] === undefined) known[key] = value;
        }
      }
    }
  }
  const result = new Map<string, ApiPage | undefined>();
  for (const asked of batch) {
    let title = asked;
    for (let hops = 0; hops < 5 && renamed.has(title); hops++) title = renamed.get(title)!;
    result.set(asked, byTitle.get(title));
  }
  return result;
}

/** The asked title's page as a document, or why it is skipped (a page seen before under another title is a duplicate). */
function toItem(asked: string, fetched: Map<string, ApiPage | undefined>, seenPages: Set<string>, { params, convert, disambiguationTemplates }: PageReading): BuilderItem {
  const page = fetched.get(asked);
  if (!page) return { kind: 'skipped', reason: 'missing', docId: asked };
  if (page.invalid) return { kind: 'skipped', reason: 'invalidTitle', docId: asked };
  if (page.missing || page.pageid === undefined) return { kind: 'skipped', reason: 'missing', docId: asked };
  const docId = String(page.pageid);
  if (!params.namespaces.includes(page.ns)) return { kind: 'skipped', reason: 'namespace', docId };
  if (seenPages.has(docId)) return { kind: 'skipped', reason: 'duplicate', docId };
  seenPages.add(docId);
  let sections: DocumentSection[];
  let disambiguation =
    (page.pageprops !== undefined && 'disambiguation' in page.pageprops) ||
    (page.templates ?? []).some((t) => disambiguationTemplates.has(normalizeTitle(t.title.replace(/^[^:]+:/, ''))));
  if (params.source === 'extracts') {
    sections = extractToSections(page.extract ?? '', params.dropSections, convert);
  } else {
    const revision = page.revisions?.[0];
    const slot = revision?.slots?.main;
    const model = slot?.contentmodel ?? page.contentmodel ?? 'wikitext';
    if (model !== 'wikitext') return { kind: 'skipped', reason: 'contentModel', docId };
    const wikitext = slot?.content ?? revision?.content;
    if (wikitext === undefined) return { kind: 'skipped', reason: 'noRevision', docId };
    const article = wikitextToArticle(wikitext, {
      simplify: params.simplify,
      dropSections: params.dropSections,
      disambiguationTemplates: params.disambiguationTemplates,
      parser: params.parser,
    });
    disambiguation ||= article.disambiguation;
    sections = article.sections;
  }
  if (params.skipDisambiguation && disambiguation) return { kind: 'skipped', reason: 'disambiguation', docId };
  if (sections.length === 0) return { kind: 'skipped', reason: 'empty', docId };
  const title = convert(page.title);
  const meta: Record<string, unknown> = { pageId: docId };
  const url = page.canonicalurl ?? page.fullurl;
  if (url) meta.url = url;
  if (title !== page.title) meta.originalTitle = page.title;
  return { kind: 'document', document: { docId, title, text: sections.map((s) => s.text).join('\n\n'), meta, sections } };
}

function normalizeTitle(name: string): string {
  return name.trim().replace(/_/g, ' ').toLowerCase();
}

function describeSelection(params: MediawikiApiParams): string {
  const parts: string[] = [];
  if (params.titles) parts.push(`titles ${params.titles.join(', ')}`);
  if (params.search) parts.push(`search "${params.search.query}"`);
  for (const c of params.categories ?? []) parts.push(`category ${c.name} (depth ${c.depth})`);
  return parts.join('; ');
}
