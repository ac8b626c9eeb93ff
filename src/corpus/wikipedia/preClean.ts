/**
 * A fast first pass over wikitext, before wtf_wikipedia, that removes what is never article text
 * and what wtf_wikipedia would otherwise leave behind: MediaWiki extension tags (`<ref>`,
 * `<references group="注" />`, `<math>`, `<gallery>`, `<timeline>` …), HTML comments,
 * `<includeonly>` parts; it unwraps `<noinclude>`/`<onlyinclude>`, keeps `<poem>` text line by line,
 * and protects `<nowiki>` text from being read as markup (stand-ins, restored by `restoreNowiki`).
 *
 * Hand-written regular expressions rather than a parser: wtf_wikipedia does not know these tags,
 * and a full MediaWiki preprocessor (Parsoid) is PHP/Node-service sized. Each expression is linear
 * in the page size.
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
  if (!HAS_TAG_OR_COMMENT.test(wikitext)) return wikitext;
  let text = wikitext;
  if (text.includes('nowiki')) {
    text = text.replace(NOWIKI_EMPTY, '').replace(NOWIKI, (_, inner: string) => protect(decodeEntities(inner)));
  }
  if (text.includes('<!--')) text = text.replace(COMMENT, '');
  text = text.replace(DROPPED_ELEMENT, '').replace(STRAY_TAG, '');
  if (/<poem/i.test(text)) {
    // Each line of a poem is a line of text: a paragraph break keeps the parser from joining them.
    text = text.replace(POEM, (_, inner: string) => `\n\n${inner.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).join('\n\n')}\n\n`);
  }
  return text.replace(UNWRAPPED_TAG, '');
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
