import { z } from 'zod';
import { DEFAULT_DISAMBIGUATION_TEMPLATES, DEFAULT_DROPPED_SECTIONS } from '../wikipedia/builderSchema.js';
import { WIKITEXT_PARSERS } from '../wikipedia/wikitextParsers.js';
import type { ComponentSchema } from '../../registry.js';

const CategorySpec = z.strictObject({
  name: z.string().min(1).describe('Category name, with or without the `Category:` prefix'),
  depth: z.number().int().nonnegative().default(1).describe('0: the category\'s own pages; 1: and its subcategories\' pages; ..'),
});

export const MediawikiApiParamsSchema = z
  .strictObject({
    apiUrl: z.string().url().default('https://zh.wikipedia.org/w/api.php').describe('The wiki\'s `api.php` URL'),
    titles: z.array(z.string().min(1)).optional().describe('Fetch these pages by title'),
    search: z.strictObject({ query: z.string().min(1), limit: z.number().int().positive().max(5000).default(50) }).optional().describe('Fetch the pages a full-text search finds: `{ query, limit }`'),
    categories: z.array(CategorySpec).optional().describe('Fetch the pages of these categories'),
    // `wikitext` works on any MediaWiki ≥ 1.35 (the dump builder's parser); `extracts` needs TextExtracts.
    source: z.enum(['wikitext', 'extracts']).default('wikitext').describe('Where the text comes from'),
    parser: z.enum(WIKITEXT_PARSERS).default('fast').describe('Wikitext → text, as in the dump builder (`fast` or `wtf_wikipedia`)'),
    namespaces: z.array(z.number().int()).min(1).default([0]).describe('Namespaces kept (others are skipped as `namespace`)'),
    maxPages: z.number().int().positive().optional().describe('Stop after this many pages in all'),
    batchSize: z.number().int().positive().max(50).default(20).describe('Titles per `prop=revisions` request (the API allows 50); extracts are read one page a request'),
    minIntervalMs: z.number().int().nonnegative().default(200).describe('At least this long between two API calls'),
    retries: z.number().int().nonnegative().default(3).describe('Retries per call on network errors, 429/5xx answers and maxlag/readonly errors'),
    maxlag: z.number().int().nonnegative().default(5).describe('`maxlag` sent with each request (Wikimedia asks bots for 5); 0 sends none'),
    maxRetryAfterSeconds: z.number().positive().default(120).describe('Longest `Retry-After` wait honoured before a call fails'),
    userAgent: z.string().min(1).default('hisrag/0.1 (RAG corpus builder for research on Chinese historical text; https://www.mediawiki.org/wiki/API:Etiquette)').describe('User-Agent sent with each request (Wikimedia asks for one that names the tool and a contact)'),
    simplify: z.boolean().default(true).describe('Convert the text to simplified Chinese'),
    skipDisambiguation: z.boolean().default(true).describe('Skip disambiguation pages'),
    disambiguationTemplates: z.array(z.string().min(1)).default(DEFAULT_DISAMBIGUATION_TEMPLATES).describe('Templates that mark a disambiguation page (besides the `disambiguation` page property)'),
    dropSections: z.array(z.string()).default(DEFAULT_DROPPED_SECTIONS).describe('Section titles dropped from each page (references, see also …)'),
  })
  .refine((p) => p.titles || p.search || p.categories, { message: 'give titles, search or categories', path: ['titles'] });
export type MediawikiApiParams = z.output<typeof MediawikiApiParamsSchema>;

export const mediawikiApiSchema: ComponentSchema<MediawikiApiParams> = {
  name: 'mediawiki-api',
  description: 'MediaWiki Action API: pages by title, search query or category crawl (wikitext, or TextExtracts), with continuation, maxlag and retries',
  params: MediawikiApiParamsSchema,
};
