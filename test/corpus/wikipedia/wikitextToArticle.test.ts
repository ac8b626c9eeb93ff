import { describe, expect, it } from 'vitest';
import { WIKITEXT_PARSERS, wikitextToArticle } from '../../../src/corpus/wikipedia/wikitextToArticle.js';
import { DEFAULT_DROPPED_SECTIONS } from '../../../src/corpus/wikipedia/builder.js';

const base = { simplify: false, dropSections: DEFAULT_DROPPED_SECTIONS, disambiguationTemplates: ['消歧义'] };
const article = `{{Infobox person|name=朱熹|birth=1130}}
'''朱熹'''（1130年—1200年），字'''元晦'''<ref>{{cite book|title=宋史}}</ref>，[[南宋]]著名[[理学家|理學家]]。他編撰了《[[四書章句集注]]》。

== 生平 ==
朱熹出生於[[福建]]。[[File:Zhu Xi.jpg|thumb|朱熹像]][[文件:Zhu2.jpg|thumb|又一像]]他十九歲中進士。<ref name="a">某書</ref>

=== 仕途 ===
{| class="wikitable"
|-
! 年份 !! 官職
|-
| 1151 || 同安主簿
|}
後任知南康軍。
* 著《家禮》。

== 參見 ==
* [[理學]]
=== 參見的子節 ===
不應出現。

== 著作 ==
《朱子語類》。
[[Category:宋朝哲學家]]
[[分類:南宋]]`;

describe.each(WIKITEXT_PARSERS)('wikitextToArticle with parser %s', (parser) => {
  const options = { ...base, parser };
  const parsed = wikitextToArticle(article, options);
  const allText = parsed.sections.map((s) => s.text).join('\n');

  it('keeps prose with Chinese full stops intact', () => {
    expect(parsed.sections[0]!.text).toBe('朱熹（1130年—1200年），字元晦，南宋著名理學家。他編撰了《四書章句集注》。');
  });

  it('drops templates, references, tables, files and categories', () => {
    for (const gone of ['Infobox', '宋史', '某書', '同安主簿', '朱熹像', '又一像', 'thumb', '宋朝哲學家', 'Category']) {
      expect(allText).not.toContain(gone);
    }
  });

  it('keeps section headings as heading paths and list items as lines', () => {
    expect(parsed.sections.map((s) => s.headings)).toEqual([[], ['生平'], ['生平', '仕途'], ['著作']]);
    expect(parsed.sections[2]!.text).toBe('後任知南康軍。\n著《家禮》。');
  });

  it('drops see-also style sections with their subsections', () => {
    expect(allText).not.toContain('理學\n');
    expect(allText).not.toContain('不應出現');
  });

  it('lists categories, including the local 分類 namespace', () => {
    expect(parsed.categories).toEqual(['宋朝哲學家', '南宋']);
  });

  it('converts the extracted text to simplified Chinese when asked', () => {
    const simplified = wikitextToArticle(article, { ...options, simplify: true });
    expect(simplified.sections[1]).toEqual({ headings: ['生平'], text: '朱熹出生于福建。他十九岁中进士。' });
    expect(simplified.categories).toContain('宋朝哲学家');
  });

  it('detects disambiguation pages by template', () => {
    expect(wikitextToArticle("'''進士'''可以指：\n* [[進士 (科舉)]]\n{{消歧义}}", options).disambiguation).toBe(true);
    expect(parsed.disambiguation).toBe(false);
  });
});
