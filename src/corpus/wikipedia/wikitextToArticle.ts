import wtf from 'wtf_wikipedia';
import { toSimplified } from '../../text/simplify.js';
import type { DocumentSection } from '../types.js';
import { preClean, restoreNowiki } from './preClean.js';

export interface WikitextOptions {
  /** Convert headings and text to simplified Chinese (after extraction: cheaper and cleaner). */
  simplify: boolean;
  /** Section headings (compared after simplification) dropped with their subsections. */
  dropSections: string[];
  /** Template names that mark a disambiguation page, besides wtf_wikipedia's own list. */
  disambiguationTemplates: string[];
}

export interface ParsedArticle {
  disambiguation: boolean;
  /** Category names without the namespace prefix, as written (simplified when `simplify`). */
  categories: string[];
  sections: DocumentSection[];
}

// wtf_wikipedia rewrites every 。 as ". " (for Japanese) and its sentence splitter then joins
// sentences with spaces; a private-use stand-in keeps Chinese sentence ends intact.
const FULL_STOP_STAND_IN = '\uE000';
// wtf_wikipedia's namespace lists lack zhwiki's local names for files and categories (its regexes
// are built at import time, so they cannot be extended); rewrite them to the canonical ones.
const LOCAL_FILE_LINK = /\[\[\s*(?:文件|檔案|档案|图像|圖像|图片|圖片|媒体|媒體|媒体文件)\s*:/g;
const LOCAL_CATEGORY_LINK = /\[\[\s*(?:分类|分類)\s*:/g;
const CJK_OR_FULLWIDTH = '[\\u2e80-\\u303f\\u3400-\\u9fff\\uf900-\\ufaff\\uff00-\\uffef\\u{20000}-\\u{3134f}]';
const SPACE_NEXT_TO_CJK = new RegExp(`(?<=${CJK_OR_FULLWIDTH})[ \\t\\u00a0]+|[ \\t\\u00a0]+(?=${CJK_OR_FULLWIDTH})`, 'gu');

/**
 * Wikitext → plain-text sections with wtf_wikipedia: templates, references, tables, files and
 * categories are dropped; list items are kept as lines; headings become each section's path.
 */
export function wikitextToArticle(wikitext: string, options: WikitextOptions): ParsedArticle {
  const doc = wtf(
    preClean(wikitext).replaceAll('。', FULL_STOP_STAND_IN).replace(LOCAL_FILE_LINK, '[[File:').replace(LOCAL_CATEGORY_LINK, '[[Category:'),
  );
  const convert = options.simplify ? toSimplified : (text: string) => text;
  const dropped = new Set(options.dropSections.map((h) => toSimplified(h)));
  const templateNames = new Set(options.disambiguationTemplates.map((t) => normalizeTemplateName(t)));
  const disambiguation =
    doc.isDisambiguation() ||
    (templateNames.size > 0 &&
      (doc.templates() as { json(): { template?: string } }[]).some((t) => templateNames.has(normalizeTemplateName(t.json().template ?? ''))));

  const sections: DocumentSection[] = [];
  const path: string[] = [];
  let dropBelowDepth = Infinity;
  for (const section of doc.sections()) {
    const depth = section.depth();
    const heading = convert(clean(section.title()));
    if (depth <= dropBelowDepth) dropBelowDepth = Infinity;
    path.length = Math.min(path.length, depth);
    if (heading) path[depth] = heading;
    if (dropBelowDepth !== Infinity) continue;
    if (heading && dropped.has(toSimplified(heading))) {
      dropBelowDepth = depth;
      continue;
    }
    const text = convert(clean(section.text({})));
    if (text) sections.push({ headings: heading ? path.slice(0, depth + 1).filter(Boolean) : [], text });
  }
  return {
    disambiguation,
    categories: doc.categories().map((c) => convert(clean(String(c)))),
    sections,
  };
}

function clean(text: string): string {
  return restoreNowiki(text)
    .replaceAll(FULL_STOP_STAND_IN, '。')
    .split('\n')
    .map((line) => line.replace(/^\s*[*#:;]+\s*/, '').replace(SPACE_NEXT_TO_CJK, '').replace(/[ \t]{2,}/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

function normalizeTemplateName(name: string): string {
  return name.trim().toLowerCase().replace(/_/g, ' ').replace(/^(?:template|模板|樣板|样板)\s*:\s*/, '');
}
