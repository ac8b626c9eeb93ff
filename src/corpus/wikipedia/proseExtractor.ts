import wtf from 'wtf_wikipedia';
import { preClean, stripNonText } from './preClean.js';

/**
 * The fast wikitext → prose path of the dump and API builders: a few linear regular-expression passes
 * giving the text wtf_wikipedia gives (headings, paragraphs, list items, link text) at several times its
 * speed; wtf_wikipedia still renders the few inline templates that make text (`{{lang|…}}`), cached.
 */
export interface ProseSection {
  /** 0 for the lead and `==` headings, 1 for `===`, … */
  depth: number;
  title: string;
  /** Paragraphs joined by blank lines; within one, its lines joined by spaces, list items on lines of their own after them. */
  text: string;
}

export interface ExtractedProse {
  sections: ProseSection[];
  categories: string[];
  /** Names of the templates used (lower case, without a `Template:` prefix): disambiguation detection. */
  templates: string[];
}

// Inline templates that never render text (citations needed, maintenance tags, reference lists …):
// dropped without asking wtf_wikipedia.
const SILENT_TEMPLATES = new Set([
  'reflist', 'references', 'notelist', 'cite', 'citation', 'citation needed', 'cn', 'fact', 'main', 'see also', 'seealso', 'further',
  '来源请求', '來源請求', '需要来源', '需要來源', '参见', '參見', '主条目', '主條目', '更多', 'noteta', 'toc', 'clr', 'defaultsort',
  '消歧义', '消歧義', 'disambig', 'dab', 'disambiguation', '消除歧义', '消除歧義', 'portal', 'commons', 'commonscat', 'wikisource', 'authority control',
  'stub', '小作品', 'refbegin', 'refend', 'pp-semi', 'pp', 'short description', 'use dmy dates', 'italic title',
]);
const TEMPLATE_CACHE_LIMIT = 20_000;
const templateCache = new Map<string, string>();

// The commonest text templates, rendered here as wtf_wikipedia renders them (its "easy inline"
// templates: the text is one positional parameter), without building a document per call.
const POSITIONAL_TEMPLATES = new Map<string, number>([
  ['lang', 1], ['rtl-lang', 1], ['nowrap', 0], ['nobr', 0], ['big', 0], ['smaller', 0], ['larger', 0], ['bigger', 0],
  ['large', 0], ['huge', 0], ['mono', 0], ['kbd', 0], ['defn', 0], ['nobold', 0], ['noitalic', 0],
]);

// zhwiki's links to an article in another language's Wikipedia, which show their Chinese text
// (wtf_wikipedia does not know them and drops the text): {{le|中文|English}}, {{link-en|中文|English}},
// {{Internal link helper/en|中文|English}}, {{tsl|en|English|中文}}.
const ZHWIKI_LINK_TEMPLATES = new Map<string, number>([['le', 0], ['tsl', 2], ['translink', 2], ['ilh', 0]]);

/** Text an inline template renders as, according to wtf_wikipedia (cached per template call). */
function renderTemplate(call: string, name: string): string {
  if (name.startsWith('#') || SILENT_TEMPLATES.has(name) || name.startsWith('cite ') || name.startsWith('citation')) return '';
  const position =
    POSITIONAL_TEMPLATES.get(name) ?? ZHWIKI_LINK_TEMPLATES.get(name) ?? (/^lang-[a-z-]+$/.test(name) || /^(?:link-|internal link helper\/)[a-z]{2,3}(?:-[a-z]+)?$/.test(name) ? 0 : undefined);
  const inner = call.slice(2, -2);
  if (position !== undefined && !inner.includes('{{') && !inner.includes('[[')) {
    const positional = inner.split('|').slice(1).filter((param) => !/^\s*[\w -]+\s*=/.test(param)).map((param) => param.trim());
    // {{tsl|en|Foreign title}} without a local title shows the foreign one.
    return (positional[position] || (name === 'tsl' ? positional[1] : '') || '').trim();
  }
  let text = templateCache.get(call);
  if (text === undefined) {
    text = wtf(call).text().replace(/\s+/g, ' ');
    if (templateCache.size >= TEMPLATE_CACHE_LIMIT) templateCache.clear();
    templateCache.set(call, text);
  }
  return text;
}

// wtf_wikipedia's own heading and paragraph rules (02-section, 03-paragraph, list).
const SECTION_SPLIT = /(?:\n|^)(={2,6}.{1,200}?={2,6})/;
const HEADING = /^(={1,6})(.{1,200}?)={1,6}$/;
const PARAGRAPH_SPLIT = /\r?\n\r?\n/;
const LIST_LINE = /^[#*:;|]+/;
const BULLET_LINE = /^\*+[^:,|]{4}/;
const NUMBER_LINE = /^ ?#[^:,|]{4}/;
const MAGIC_WORD = /__[A-Z]{2,}__/g;
const HORIZONTAL_RULE = /-{4,}/g;

// Inline markup.
const LINK = /\[\[:?([^[\]|]*?)(?:\|([^[\]]*))?\]\]/g;
const EXTERNAL_LINK = /\[(?:https?:)?\/\/[^\s\]]+(?:\s+([^\]]*))?\]/g;
const BOLD_ITALIC = /'{2,}/g;
const HTML_TAG = /<\/?[a-zA-Z][^>]*>/g;
const ENTITY = /&(nbsp|amp);/g;

function inline(text: string): string {
  let out = text;
  if (out.includes('[[')) {
    out = out.replace(LINK, (_, target: string, label: string | undefined) => {
      if (label !== undefined) return label;
      const withoutAnchor = target.replace(/#.*$/, '');
      // Interwiki and language links ([[en:Foo]], [[wikt:字]]) show the page name.
      return withoutAnchor.includes(':') ? withoutAnchor.slice(withoutAnchor.lastIndexOf(':') + 1) : withoutAnchor;
    });
  }
  if (out.includes('//')) out = out.replace(EXTERNAL_LINK, (_, label: string | undefined) => label ?? '');
  if (out.includes("''")) out = out.replace(BOLD_ITALIC, '');
  if (out.includes('<')) out = out.replace(HTML_TAG, ' ');
  if (out.includes('&')) out = out.replace(ENTITY, (_, name: string) => (name === 'amp' ? '&' : ' '));
  return out;
}

function paragraphText(paragraph: string): string {
  const sentences: string[] = [];
  const items: string[] = [];
  for (const raw of paragraph.split('\n')) {
    const line = raw.trim() === '' ? '' : raw;
    if (!line) continue;
    if (LIST_LINE.test(line) || BULLET_LINE.test(line) || NUMBER_LINE.test(line)) items.push(inline(line.replace(LIST_LINE, '')).trim());
    else sentences.push(inline(line).trim());
  }
  let text = sentences.filter(Boolean).join(' ');
  for (const item of items) text += `\n${item}`;
  return text;
}

/** Sections of prose, categories and template names of a page's wikitext. */
export function extractProse(wikitext: string): ExtractedProse {
  const templates: string[] = [];
  const stripped = stripNonText(preClean(wikitext), {
    inlineTemplate(call, name) {
      templates.push(name);
      return renderTemplate(call, name);
    },
    blockTemplate(name) {
      templates.push(name);
    },
  });
  let text = stripped.text;
  if (text.includes('__')) text = text.replace(MAGIC_WORD, '');
  if (text.includes('----')) text = text.replace(HORIZONTAL_RULE, '');
  const parts = text.split(SECTION_SPLIT);
  const sections: ProseSection[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const heading = parts[i - 1] ?? '';
    const body = parts[i] ?? '';
    if (heading === '' && body === '') continue;
    let depth = 0;
    let title = '';
    const match = HEADING.exec(heading);
    if (match) {
      depth = Math.max(0, match[1]!.length - 2);
      title = inline(match[2]!).trim();
    }
    const paragraphs = body
      .split(PARAGRAPH_SPLIT)
      .filter((p) => p.trim().length > 0)
      .map(paragraphText);
    sections.push({ depth, title, text: paragraphs.join('\n\n') });
  }
  return { sections, categories: stripped.categories, templates };
}
