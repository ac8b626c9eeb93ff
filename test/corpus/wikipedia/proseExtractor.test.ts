import { describe, expect, it } from 'vitest';
import { extractProse } from '../../../src/corpus/wikipedia/proseExtractor.js';
import { wikitextToArticle } from '../../../src/corpus/wikipedia/wikitextToArticle.js';

const options = { simplify: false, dropSections: [], disambiguationTemplates: ['消歧义', 'disambig'] };
const fast = (wikitext: string) => wikitextToArticle(wikitext, { ...options, parser: 'fast' });
const reference = (wikitext: string) => wikitextToArticle(wikitext, { ...options, parser: 'wtf_wikipedia' });

// The fast extractor is held to wtf_wikipedia's output, construct by construct.
describe('fast prose extractor gives the text wtf_wikipedia gives', () => {
  it.each([
    ['links with and without labels, anchors, interwiki', '甲[[乙]]丙[[丁丁|戊]]己[[a#b]]庚[[:en:Foo|福]]辛[[wikt:字]]。'],
    ['bold and italic', "''斜''與'''粗'''及'''''粗斜'''''。"],
    ['external links with and without labels', '甲[http://x.org 外链]乙[http://y.org]丙。'],
    ['HTML formatting tags', '甲<span style="x">乙</span>丙<small>丁</small><sup>1</sup>戊<br>己<br />庚。'],
    ['entities', '甲&nbsp;乙&amp;丙。'],
    ['magic words and horizontal rules', '甲 __TOC__ 乙。\n__NOTOC__\n----\n丙。'],
    ['lists after their paragraph’s lines', 'a\nb\n* 列一\nc\n# 列二\n: 缩进\n; 定义\nd'],
    ['several paragraphs', '一。\n\n\n二。\n\n三。'],
    ['nested headings with markup', "== '''标题''' [[链]] ==\n内容。\n=== 子节 ===\n更多。\n== 二 ==\n完。"],
    ['an infobox, a table, files and categories', "{{Infobox person\n| 名稱 = 甲\n}}\n'''甲'''是人。\n{| class=\"wikitable\"\n|-\n| 表 || 格\n|}\n[[File:A.jpg|thumb|圖說]][[文件:B.jpg|thumb|又]]\n[[Category:丙類]][[分類:丁類]]"],
    ['inline text templates', '甲{{lang|zh-hant|漢字}}乙{{lang-en|English}}丙{{nowrap|不断}}丁{{convert|5|km}}戊{{來源請求|time=2020}}。'],
    ['a disambiguation page', "'''甲'''可以指：\n* [[甲 (一)]]\n* [[甲 (二)]]\n{{disambig}}"],
  ])('%s', (_, wikitext) => {
    expect(fast(wikitext)).toEqual(reference(wikitext));
  });
});

describe('extractProse', () => {
  it('shows the label of a link to a one-character title, as MediaWiki does (wtf_wikipedia shows "丁|戊")', () => {
    expect(fast('甲[[丁|戊]]己。').sections[0]!.text).toBe('甲戊己。');
  });

  it('reports categories and the templates used', () => {
    const prose = extractProse("{{Infobox 人物\n| a = 1\n}}\n甲{{Lang|en|x}}。{{消歧义}}\n[[分類:乙|排序]][[Category:丙]]");
    expect(prose.categories).toEqual(['乙', '丙']);
    expect(prose.templates).toEqual(['infobox 人物', 'lang', '消歧义']);
  });

  it('drops a file link whose caption holds links, and keeps the categories after it', () => {
    const prose = extractProse('正文。[[File:A.jpg|thumb|圖[[乙]]說]]\n[[Category:丙]]');
    expect(prose.sections.map((s) => s.text)).toEqual(['正文。']);
    expect(prose.categories).toEqual(['丙']);
  });

  it('splits sections at headings with their depth', () => {
    expect(extractProse('导言。\n== 一 ==\n甲。\n=== 一之一 ===\n乙。').sections).toEqual([
      { depth: 0, title: '', text: '导言。' },
      { depth: 0, title: '一', text: '甲。' },
      { depth: 1, title: '一之一', text: '乙。' },
    ]);
  });
});

describe('zhwiki templates wtf_wikipedia does not know', () => {
  const text = (wikitext: string) => fast(wikitext).sections[0]!.text;
  it.each([
    ['{{le|福特|Ford}}', '甲福特乙。'],
    ['{{link-en|福特|Ford}}', '甲福特乙。'],
    ['{{Internal link helper/en|福特|Ford}}', '甲福特乙。'],
    ['{{tsl|en|Ford|福特}}', '甲福特乙。'],
    ['{{tsl|en|Ford}}', '甲Ford乙。'],
  ])('interlanguage link %s shows its text', (template, expected) => {
    expect(text(`甲${template}乙。`)).toBe(expected);
  });
});
