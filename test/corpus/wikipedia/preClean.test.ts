import { describe, expect, it } from 'vitest';
import { preClean, restoreNowiki } from '../../../src/corpus/wikipedia/preClean.js';
import { wikitextToArticle } from '../../../src/corpus/wikipedia/wikitextToArticle.js';

const options = { simplify: false, dropSections: ['注釋'], disambiguationTemplates: ['消歧义'] };
const textOf = (wikitext: string) => wikitextToArticle(wikitext, options).sections.map((s) => s.text).join('\n');

describe('wikitext pre-pass: extension tags never reach the text', () => {
  it.each([
    ['<ref> with a citation template', '前<ref>{{cite book|title=宋史}}</ref>後。', '前後。'],
    ['named and self-closing <ref>', '前<ref name="a">某書</ref>中<ref name="a" />後。', '前中後。'],
    ['grouped <ref> and <references group="注" />', '前<ref group="注">注一</ref>後。\n<references group="注" />', '前後。'],
    ['<references> with refs inside', '前後。\n<references group="注">\n<ref name="n">注內容</ref>\n</references>', '前後。'],
    ['<references/> and <references />', '前後。<references/><references />', '前後。'],
    ['<math>', '公式<math>\\frac{a}{b}</math>後。', '公式後。'],
    ['<math display="block">', '公式<math display="block">x^2</math>後。', '公式後。'],
    ['<chem> and <ce>', '水<chem>H2O</chem>與<ce>CO2</ce>。', '水與。'],
    ['<gallery>', '前。\n<gallery mode="packed">\nFile:A.jpg|圖說甲\n文件:B.jpg|圖說乙\n</gallery>\n後。', '前。\n後。'],
    ['<syntaxhighlight> and <source>', '碼<syntaxhighlight lang="python">print(1)</syntaxhighlight><source lang="c">x;</source>。', '碼。'],
    ['<timeline>', '前。\n<timeline>\nImageSize = width:100\n</timeline>\n後。', '前。\n後。'],
    ['<imagemap>', '前。\n<imagemap>\nImage:Map.png|thumb\nrect 0 0 10 10 [[某地]]\n</imagemap>\n後。', '前。\n後。'],
    ['<templatestyles />', '前<templatestyles src="Plainlist/styles.css" />後。', '前後。'],
    ['HTML comments, one line or several', '前<!-- 注 -->中<!--\n多行\n-->後。', '前中後。'],
    ['<includeonly> with its content', '前<includeonly>嵌入時。</includeonly>後。', '前後。'],
    ['<noinclude> and <onlyinclude> unwrapped', '<noinclude>甲。</noinclude><onlyinclude>乙。</onlyinclude>', '甲。乙。'],
    ['an unclosed <ref> (MediaWiki shows an error)', '前<ref name="x">後。', '前後。'],
    ['upper-case tag names', '前<REF>注</REF>後。', '前後。'],
  ])('%s', (_, wikitext, expected) => {
    expect(textOf(wikitext)).toBe(expected);
  });

  it.each([
    ['plain -{text}-', '甲-{乙}-丙。', '甲乙丙。'],
    ['variant rules: the simplified (mainland) variant', '用-{zh-hans:计算机; zh-hant:電腦;}-計算。', '用计算机計算。'],
    ['zh-cn before zh-hans, zh before traditional ones', '-{zh-tw:軟體;zh-cn:软件;zh-hans:軟件;}-與-{zh-hant:甲;zh:乙;}-。', '软件與乙。'],
    ['H (page-wide rule) and T (title) give no text', '-{H|zh-cn:打印机; zh-tw:印表機;}-文中-{T|zh-cn:标题;zh-tw:標題}-印表機。', '文中印表機。'],
    ['R keeps the raw text', '-{R|zh-cn:不转换}-。', 'zh-cn:不转换。'],
    ['a template next to a hyphen is not conversion markup', '甲{{lang|en|x}}-{{lang|en|y}}乙。', '甲x-y乙。'],
  ])('resolves language-conversion markup: %s', (_, wikitext, expected) => {
    expect(textOf(wikitext)).toBe(expected);
  });

  it('keeps <poem> text line by line', () => {
    expect(textOf('詩曰：\n<poem>\n床前明月光，\n疑是地上霜。\n</poem>\n完。')).toBe('詩曰：\n床前明月光，\n疑是地上霜。\n完。');
  });

  it('unwraps <nowiki> and keeps its text literal', () => {
    expect(textOf("<nowiki>[[不是連結]] {{不是模板}} '''不粗'''</nowiki>保留。")).toBe("[[不是連結]] {{不是模板}} '''不粗'''保留。");
    expect(textOf('甲<nowiki/>乙。')).toBe('甲乙。');
    expect(restoreNowiki(preClean('<nowiki>&lt;ref&gt;</nowiki>'))).toBe('<ref>');
  });

  it('leaves text without tags untouched (and does not copy it)', () => {
    const plain = "'''甲'''是[[乙]]。";
    expect(preClean(plain)).toBe(plain);
  });
});

describe('namespaces and disambiguation', () => {
  it('drops files and categories in the local and canonical namespace names', () => {
    const parsed = wikitextToArticle('正文。[[文件:A.jpg|thumb|圖甲]][[File:B.jpg|thumb|圖乙]][[Image:C.jpg|圖丙]][[圖像:D.jpg|圖丁]]\n[[分類:甲類]][[Category:乙類]][[分类:丙類]]', options);
    expect(parsed.sections.map((s) => s.text)).toEqual(['正文。']);
    expect(parsed.categories).toEqual(['甲類', '乙類', '丙類']);
  });

  it('detects disambiguation by template name, with 模板:/Template: prefixes or none', () => {
    expect(wikitextToArticle('甲可以指：\n* [[甲 (一)]]\n{{消歧义}}', options).disambiguation).toBe(true);
    expect(wikitextToArticle('甲可以指：\n* [[甲 (一)]]\n{{Disambig}}', { ...options, disambiguationTemplates: ['disambig'] }).disambiguation).toBe(true);
    expect(wikitextToArticle('甲可以指：\n* [[甲 (一)]]\n{{Template:消歧义}}', options).disambiguation).toBe(true);
    expect(wikitextToArticle('甲可以指：\n* [[甲 (一)]]\n{{模板:消歧义}}', options).disambiguation).toBe(true);
    expect(wikitextToArticle('甲是乙。', options).disambiguation).toBe(false);
  });
});
