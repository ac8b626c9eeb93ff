import wtf from 'wtf_wikipedia';
import { toSimplified } from '../../text/simplify.js';
import type { DocumentSection } from '../../chunking/types.js';
import { preClean, restoreNowiki, templateName } from './preClean.js';
import { extractProse, type ProseSection } from './proseExtractor.js';
import type { WikitextParserName } from './wikitextParsers.js';

export { WIKITEXT_PARSERS, type WikitextParserName } from './wikitextParsers.js';

export interface WikitextOptions {
  /** Convert headings and text to simplified Chinese (after extraction: cheaper and cleaner). */
  simplify: boolean;
  /** Section headings (compared after simplification) dropped with their subsections. */
  dropSections: string[];
  /** Template names that mark a disambiguation page (with `wtf_wikipedia`, besides its own list). */
  disambiguationTemplates: string[];
  /**
   * `fast` (default): the purpose-built prose extractor (proseExtractor.ts); `wtf_wikipedia`: the
   * full wtf_wikipedia document model, as before (slower; kept for comparison).
   */
  parser?: WikitextParserName;
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
 * Wikitext → plain-text sections (fast prose extractor by default, or wtf_wikipedia): templates,
 * references, extension tags, tables, files and categories are dropped; list items are kept as
 * lines; headings become each section's path.
 */
export function wikitextToArticle(wikitext: string, options: WikitextOptions): ParsedArticle {
  const templateNames = new Set(options.disambiguationTemplates.map((t) => templateName(t)));
  let raw: { sections: ProseSection[]; categories: string[]; disambiguation: boolean };
  if (options.parser === 'wtf_wikipedia') {
    raw = parseWithWtf(wikitext, templateNames);
  } else {
    const prose = extractProse(wikitext);
    raw = { sections: prose.sections, categories: prose.categories, disambiguation: prose.templates.some((t) => templateNames.has(t)) };
  }
  const convert = options.simplify ? toSimplified : (text: string) => text;
  const dropped = new Set(options.dropSections.map((h) => toSimplified(h)));
  const sections: DocumentSection[] = [];
  const path: string[] = [];
  let dropBelowDepth = Infinity;
  for (const section of raw.sections) {
    const depth = section.depth;
    const heading = convert(clean(section.title));
    if (depth <= dropBelowDepth) dropBelowDepth = Infinity;
    path.length = Math.min(path.length, depth);
    if (heading) path[depth] = heading;
    if (dropBelowDepth !== Infinity) continue;
    if (heading && dropped.has(toSimplified(heading))) {
      dropBelowDepth = depth;
      continue;
    }
    const text = convert(clean(section.text));
    if (text) sections.push({ headings: heading ? path.slice(0, depth + 1).filter(Boolean) : [], text });
  }
  return {
    disambiguation: raw.disambiguation,
    categories: raw.categories.map((c) => convert(clean(c))),
    sections,
  };
}

/** The earlier path: wtf_wikipedia's document model for everything. */
function parseWithWtf(wikitext: string, templateNames: Set<string>): { sections: ProseSection[]; categories: string[]; disambiguation: boolean } {
  const doc = wtf(
    preClean(wikitext).replaceAll('。', FULL_STOP_STAND_IN).replace(LOCAL_FILE_LINK, '[[File:').replace(LOCAL_CATEGORY_LINK, '[[Category:'),
  );
  const disambiguation =
    doc.isDisambiguation() ||
    (templateNames.size > 0 && (doc.templates() as { json(): { template?: string } }[]).some((t) => templateNames.has(templateName(t.json().template ?? ''))));
  return {
    disambiguation,
    categories: doc.categories().map((c) => String(c)),
    sections: doc.sections().map((section) => ({ depth: section.depth(), title: section.title(), text: section.text({}) })),
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
