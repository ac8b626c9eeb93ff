import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { WIKITEXT_PARSERS } from './wikitextParsers.js';
import type { ComponentSchema } from '../../registry.js';

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

export const wikipediaDumpSchema: ComponentSchema<WikipediaDumpParams> = {
  name: 'wikipedia-dump',
  description: 'MediaWiki XML dump (.xml / .xml.bz2, multistream too) → cleaned article text by section',
  params: WikipediaDumpParamsSchema,
};
