/**
 * A fast first pass over wikitext, before the parser: drops extension tags (`<ref>`, `<math>`,
 * `<gallery>` …), HTML comments and `<includeonly>` parts; unwraps `<noinclude>`/`<onlyinclude>`, keeps
 * `<poem>` lines, shields `<nowiki>` text (restored by `restoreNowiki`) and resolves zhwiki's `-{…}-`
 * conversion markup to simplified text. Regular expressions (each linear in the page), because
 * wtf_wikipedia does not know these tags and a real preprocessor (Parsoid) is service-sized.
 */

/** Tags whose whole element (tag and content) is never prose. */
const DROPPED_ELEMENTS = [
  'ref', 'references', 'math', 'chem', 'ce', 'gallery', 'syntaxhighlight', 'source', 'timeline', 'imagemap',
  'templatestyles', 'includeonly', 'score', 'graph', 'mapframe', 'maplink', 'hiero', 'inputbox',
  'categorytree', 'templatedata', 'indicator', 'charinsert', 'section', 'langconvert', 'dynamicpagelist',
];
const NAMES = DROPPED_ELEMENTS.join('|');
// `<name attrs/>`, or `<name attrs>…</name>` (shortest). An unclosed one is handled below.
const DROPPED_ELEMENT = new RegExp(`<(${NAMES})(?=[\\s/>])[^>]*?(?:/>|>[\\s\\S]*?</\\1\\s*>)`, 'gi');
// What is left of them: a lone opening tag without its end (MediaWiki shows an error there), or a stray end tag.
const STRAY_TAG = new RegExp(`</?(?:${NAMES})(?=[\\s/>])[^>]*>`, 'gi');
const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
const UNWRAPPED_TAG = /<\/?(?:noinclude|onlyinclude)\s*>/gi;
const POEM = /<poem(?=[\s>])[^>]*>([\s\S]*?)<\/poem\s*>/gi;
const NOWIKI_EMPTY = /<nowiki\s*\/>/gi;
const NOWIKI = /<nowiki\s*>([\s\S]*?)<\/nowiki\s*>/gi;

// <nowiki> text: characters that are markup get private-use stand-ins (U+E100 + index) until after the parser.
const NOWIKI_SPECIALS = "[]{}|'<>=*#:;~_&-";
const NOWIKI_SPECIAL = /[[\]{}|'<>=*#:;~_&-]/g;
const STAND_IN_BASE = 0xe100;
const STAND_IN = /[\ue100-\ue11f]/g;

/** Cheap test: does the text contain anything the pre-pass changes? (Most prose lines do not.) */
const HAS_TAG_OR_COMMENT = /<[!a-z/]/i;

export function preClean(wikitext: string): string {
  if (!HAS_TAG_OR_COMMENT.test(wikitext) && !wikitext.includes('-{')) return wikitext;
  let text = wikitext;
  if (text.includes('nowiki')) {
    text = text.replace(NOWIKI_EMPTY, '').replace(NOWIKI, (_, inner: string) => protect(decodeEntities(inner)));
  }
  if (text.includes('<!--')) text = text.replace(COMMENT, '');
  if (text.includes('-{')) text = text.replace(LANGUAGE_CONVERSION, (_, inner: string) => languageConversionText(inner));
  text = text.replace(DROPPED_ELEMENT, '').replace(STRAY_TAG, '');
  if (/<poem/i.test(text)) {
    // Each line of a poem is a line of text: a paragraph break keeps the parser from joining them.
    text = text.replace(POEM, (_, inner: string) => `\n\n${inner.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).join('\n\n')}\n\n`);
  }
  return text.replace(UNWRAPPED_TAG, '');
}

// zhwiki's language-conversion markup: `-{text}-`, `-{zh-hans:计算机; zh-hant:電腦;}-`, `-{H|rules}-` ...
// (https://www.mediawiki.org/wiki/Writer:LanguageConverter). The text is what a reader of the
// simplified (mainland) variant sees; rules that only define conversions give no text.
const LANGUAGE_CONVERSION = /-\{(?!\{)([\s\S]*?)\}-/g;
const CONVERSION_FLAGS = /^\s*([A-Za-z;\s-]{1,30})\|/;
const VARIANT_RULE = /^\s*(zh(?:-[a-z]{2,4})?)\s*:([\s\S]*)$/;
const VARIANT_PREFERENCE = ['zh-cn', 'zh-hans', 'zh-sg', 'zh-my', 'zh', 'zh-hant', 'zh-tw', 'zh-hk', 'zh-mo'];

function languageConversionText(inner: string): string {
  let content = inner;
  const flags = CONVERSION_FLAGS.exec(content);
  if (flags && !flags[1]!.includes(':')) {
    const names = flags[1]!.split(';').map((f) => f.trim());
    content = content.slice(flags[0].length);
    // H: a page-wide rule, T: the title, -: removes a rule, D: a description of rules: no text.
    if (names.some((f) => f === 'H' || f === 'T' || f === '-' || f === 'D')) return '';
    if (names.includes('R')) return content;
  }
  if (!/^\s*zh(?:-[a-z]{2,4})?\s*:/.test(content)) return content;
  const variants = new Map<string, string>();
  for (const rule of content.split(';')) {
    const match = VARIANT_RULE.exec(rule);
    if (match) variants.set(match[1]!, match[2]!.replace(/^.*=>\s*zh(?:-[a-z]{2,4})?\s*:/, '').trim());
  }
  for (const variant of VARIANT_PREFERENCE) {
    const text = variants.get(variant);
    if (text !== undefined) return text;
  }
  return variants.values().next().value ?? '';
}

/** Puts back the `<nowiki>` characters that preClean replaced by stand-ins. */
export function restoreNowiki(text: string): string {
  if (!/[\ue100-\ue11f]/.test(text)) return text;
  return text.replace(STAND_IN, (c) => NOWIKI_SPECIALS[c.charCodeAt(0) - STAND_IN_BASE]!);
}

function protect(text: string): string {
  return text.replace(NOWIKI_SPECIAL, (c) => String.fromCharCode(STAND_IN_BASE + NOWIKI_SPECIALS.indexOf(c)));
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: '\u00a0' };
function decodeEntities(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos|nbsp|#\d+|#x[0-9a-f]+);/gi, (entity, name: string) => {
    if (name[0] === '#') return String.fromCodePoint(name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1)));
    return ENTITIES[name.toLowerCase()] ?? entity;
  });
}

export interface TemplateHandlers {
  /** Text to put in place of an inline template call (default: the call, left for a parser). */
  inlineTemplate?(call: string, name: string): string;
  /** Told of each multi-line template removed. */
  blockTemplate?(name: string): void;
}

/** What `stripNonText` removed and the parser would otherwise have reported: the page's categories. */
export interface StrippedPage {
  text: string;
  /** Category names as written in `[[Category:Name|sort key]]` links (any local namespace name). */
  categories: string[];
}

// Multi-line templates that wtf_wikipedia renders as text (quotations, poems, language spans):
// kept for the parser. Every other multi-line template (infoboxes, navboxes, succession boxes) is
// never prose and is the costliest thing for the parser to read.
const TEXT_TEMPLATE = /quot|引|poem|verse|詩|诗|lang|nowrap|center|block|大段/i;
const FILE_OR_CATEGORY = /^\[\[\s*(?:(file|image|文件|檔案|档案|图像|圖像|图片|圖片|媒体|媒體|媒体文件)|(category|分类|分類))\s*:/i;

/**
 * Removes, before the parser, what it would drop anyway but spends most of its time on:
 * multi-line templates (infoboxes, navboxes), tables (`{| … |}`), file links with their captions,
 * and category links (returned as `categories`). Inline templates, which the parser may turn into
 * text (`{{lang|…}}`, `{{convert|…}}`), are left to it.
 */
export function stripNonText(wikitext: string, templates: TemplateHandlers = {}): StrippedPage {
  const categories: string[] = [];
  let out = '';
  let at = 0;
  const n = wikitext.length;
  while (at < n) {
    const open = nextOpening(wikitext, at);
    if (open < 0) break;
    const pair = wikitext.slice(open, open + 2);
    if (pair === '{{') {
      const end = matchBraces(wikitext, open, '{{', '}}');
      if (end < 0) break;
      const body = wikitext.slice(open + 2, end - 2);
      const name = templateName(/^[^|}\n]*/.exec(body)![0]);
      out += wikitext.slice(at, open);
      if (body.includes('\n') && !TEXT_TEMPLATE.test(name) && !name.startsWith('#')) {
        templates.blockTemplate?.(name);
      } else {
        const call = wikitext.slice(open, end);
        out += templates.inlineTemplate ? templates.inlineTemplate(call, name) : call;
      }
      at = end;
    } else if (pair === '{|') {
      const end = matchTable(wikitext, open);
      out += wikitext.slice(at, open);
      at = end;
    } else {
      // '[['
      const head = FILE_OR_CATEGORY.exec(wikitext.slice(open, open + 40));
      const end = matchBraces(wikitext, open, '[[', ']]');
      if (!head || end < 0) {
        out += wikitext.slice(at, open + 2);
        at = open + 2;
        continue;
      }
      if (head[2]) {
        const name = wikitext.slice(open + head[0].length, end - 2).split('|')[0]!.trim();
        if (name) categories.push(name);
      }
      out += wikitext.slice(at, open);
      at = end;
    }
  }
  out += wikitext.slice(at);
  return { text: out, categories };
}

/** A template's name as a key: trimmed, lower case, `_` as space, without a `Template:` prefix. */
export function templateName(raw: string): string {
  return raw.trim().replace(/_/g, ' ').replace(/\s+/g, ' ').toLowerCase().replace(/^(?:template|模板|樣板|样板)\s*:\s*/, '');
}

/** Index of the next `{{`, `[[` or line-initial `{|` at or after `from`, or -1. */
function nextOpening(text: string, from: number): number {
  for (let i = from; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */) {
      const d = text.charCodeAt(i + 1);
      if (d === 0x7b) return i;
      if (d === 0x7c /* | */ && atLineStart(text, i)) return i;
    } else if (c === 0x5b /* [ */ && text.charCodeAt(i + 1) === 0x5b) {
      return i;
    }
  }
  return -1;
}

function atLineStart(text: string, i: number): boolean {
  for (let j = i - 1; j >= 0; j--) {
    const c = text.charCodeAt(j);
    if (c === 0x0a) return true;
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return true;
}

/** End (exclusive) of the balanced `open … close` starting at `start`, or -1 when unbalanced. */
function matchBraces(text: string, start: number, open: string, close: string): number {
  let depth = 0;
  let i = start;
  while (i < text.length) {
    const o = text.indexOf(open, i);
    const c = text.indexOf(close, i);
    if (c < 0) return -1;
    if (o >= 0 && o < c) {
      depth++;
      i = o + 2;
    } else {
      depth--;
      i = c + 2;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** End of the table opened at `start` (after its line-initial `|}`, nested tables included); the text's end if unclosed. */
function matchTable(text: string, start: number): number {
  let depth = 0;
  let lineStart = start;
  while (lineStart < text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const line = text.slice(lineStart, lineEnd).trimStart();
    if (line.startsWith('{|')) depth++;
    else if (line.startsWith('|}')) {
      depth--;
      if (depth === 0) return lineEnd;
    }
    lineStart = lineEnd + 1;
  }
  return text.length;
}
