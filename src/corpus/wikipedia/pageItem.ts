import { z } from 'zod';
import { countCodePoints } from '../../chunking/chunker.js';
import { toSimplified } from '../../text/simplify.js';
import type { BuilderItem } from '../types.js';
import type { DumpPage } from './dumpXml.js';
import { WIKITEXT_PARSERS, wikitextToArticle, type ParsedArticle, type WikitextOptions } from './wikitextToArticle.js';

/** What decides a page's fate and text: the builder's params, plus the dump's URL base. Crosses to workers. */
export const PageItemSettingsSchema = z.object({
  namespaces: z.array(z.number().int()),
  skipRedirects: z.boolean(),
  skipDisambiguation: z.boolean(),
  disambiguationTemplates: z.array(z.string()),
  simplify: z.boolean(),
  dropSections: z.array(z.string()),
  titles: z.array(z.string()).optional(),
  categories: z.array(z.string()).optional(),
  parser: z.enum(WIKITEXT_PARSERS),
  minLength: z.number().int().nonnegative(),
  urlBase: z.string().optional(),
});
export type PageItemSettings = z.infer<typeof PageItemSettingsSchema>;

/** Turns dump pages into builder items (document or skip reason), the same in any thread. */
export function createPageItems(settings: PageItemSettings): (page: DumpPage) => BuilderItem {
  const wantedTitles = settings.titles ? new Set(settings.titles.flatMap((t) => [t, toSimplified(t)])) : undefined;
  const wantedCategories = settings.categories ? new Set(settings.categories.map((c) => toSimplified(c))) : undefined;
  const wikitext: WikitextOptions = {
    simplify: settings.simplify,
    dropSections: settings.dropSections,
    disambiguationTemplates: settings.disambiguationTemplates,
    parser: settings.parser,
  };
  return (page) => {
    const skipped = (reason: string): BuilderItem => ({ kind: 'skipped', reason, docId: page.id });
    if (!settings.namespaces.includes(page.ns)) return skipped('namespace');
    if (settings.skipRedirects && (page.redirect || /^\s*#(redirect|重定向)/i.test(page.text))) return skipped('redirect');
    if (wantedTitles && !wantedTitles.has(page.title) && !wantedTitles.has(toSimplified(page.title))) return skipped('titleFilter');
    let article: ParsedArticle;
    try {
      article = wikitextToArticle(page.text, wikitext);
    } catch {
      return skipped('parseError');
    }
    if (article.disambiguation && settings.skipDisambiguation) return skipped('disambiguation');
    if (wantedCategories && !article.categories.some((c) => wantedCategories.has(toSimplified(c)))) return skipped('categoryFilter');
    const text = article.sections.map((s) => s.text).join('\n\n');
    if (!text.trim()) return skipped('empty');
    if (countCodePoints(text) < settings.minLength) return skipped('tooShort');
    const title = settings.simplify ? toSimplified(page.title) : page.title;
    const meta: Record<string, unknown> = { pageId: page.id };
    if (settings.urlBase) meta.url = settings.urlBase + encodeURIComponent(page.title.replaceAll(' ', '_'));
    if (title !== page.title) meta.originalTitle = page.title;
    return { kind: 'document', document: { docId: page.id, title, text, meta, sections: article.sections } };
  };
}
