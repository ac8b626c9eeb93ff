/**
 * Pages written by the project in zhwiki's style, imported into a throwaway MediaWiki by the
 * real-MediaWiki tests: templates, tables, <ref>s, grouped notes (`<references group="注" />`),
 * math, chem, gallery, poem, nowiki, comments, noinclude/includeonly, 文件/分類 links, -{…}-
 * language conversion, a redirect,
 * a category tree and a disambiguation page.
 */
export interface WikiPage {
  title: string;
  ns: number;
  text: string;
}

export const ZHWIKI_PAGES: WikiPage[] = [
  {
    title: '科舉',
    ns: 0,
    text: `{{Infobox 制度
| 名稱 = 科舉
| 朝代 = [[隋朝]]至[[清朝]]
}}
{{NoteTA|G1=中国历史}}
'''科舉'''是[[中國]]古代通過考試選拔[[官員]]的制度<ref>{{cite book|title=隋書|author=魏徵}}</ref>，始於[[隋朝]]<ref name="sui">《隋書·煬帝紀》</ref>。<!-- 編者注：此處不應出現 -->
唐代詩人孟郊登科後寫道：
<poem>
春風得意馬蹄疾，
一日看盡長安花。
</poem>
考試錄取率約為<math>\\frac{1}{100}</math>左右<ref group="注">一說為百分之一。</ref>。
<templatestyles src="Plainlist/styles.css" />

== 歷史 ==
{| class="wikitable"
|-
! 朝代 !! 創立
|-
| 隋 || 605年
|}
[[文件:Imperial exam.jpg|thumb|貢院號舍]]
科舉制度在[[唐朝]]得到發展，於[[宋朝]]完善。<ref name="sui" />
<gallery>
File:Gongyuan.jpg|江南貢院
文件:Exam.jpg|考卷
</gallery>

=== 明清 ===
明清兩代以[[八股文]]取士，稱-{zh-hans:八股取士;zh-hant:八股取士制}-。-{H|zh-cn:考生;zh-tw:考生;}-<nowiki>[[不是連結]]</nowiki>為原文所有。
<syntaxhighlight lang="python">print("code")</syntaxhighlight>
<timeline>
ImageSize = width:200
</timeline>
<imagemap>
Image:China map.png|thumb|地圖
rect 0 0 10 10 [[北京]]
</imagemap>
水的化學式<chem>H2O</chem>與此無關。
<noinclude>清末廢除科舉。</noinclude><includeonly>僅在嵌入時顯示。</includeonly>

== 注釋 ==
<references group="注" />

== 參考文獻 ==
<references />

[[分類:科舉]]
[[Category:中國古代制度]]`,
  },
  {
    title: '殿試',
    ns: 0,
    text: `'''殿試'''由[[皇帝]]親自主持，{{lang|en|palace examination}}。
* 考策問。
* 定名次。<ref>《明史·選舉志》</ref>
[[File:Palace exam.jpg|right|200px|殿試圖]]
[[分類:殿試相關]]`,
  },
  {
    title: '狀元',
    ns: 0,
    text: `'''狀元'''是殿試第一名。<!-- 不顯示 -->[[分類:殿試相關]]`,
  },
  {
    title: '進士 (消歧義)',
    ns: 0,
    text: `'''進士'''可以指：
* [[進士 (科舉)]]，科舉及第者
* [[進士 (地名)]]
{{消歧义}}`,
  },
  { title: '科举制', ns: 0, text: '#REDIRECT [[科舉]]' },
  { title: 'Template:消歧义', ns: 10, text: '<includeonly>本頁列出同名條目。[[Category:消歧義]]</includeonly><noinclude>消歧義模板。</noinclude>' },
  { title: 'Category:殿試相關', ns: 14, text: '與殿試相關的條目。[[分類:科舉]]' },
];

/** Titles of the articles with prose (what a build should turn into documents). */
export const ARTICLE_TITLES = ['科舉', '殿試', '狀元'];

/** A MediaWiki export (schema 0.10) of the pages, for `maintenance/importDump.php`. */
export function toImportXml(pages: WikiPage[]): string {
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const body = pages
    .map(
      (page) => `  <page>
    <title>${escape(page.title)}</title>
    <ns>${page.ns}</ns>
    <revision>
      <timestamp>2024-01-01T00:00:00Z</timestamp>
      <contributor><username>Admin</username></contributor>
      <model>wikitext</model>
      <format>text/x-wiki</format>
      <text xml:space="preserve">${escape(page.text)}</text>
    </revision>
  </page>`,
    )
    .join('\n');
  return `<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="zh">\n${body}\n</mediawiki>\n`;
}

/**
 * Markup that must never reach chunk text: tags, templates, tables, links, files, categories,
 * comments, and the contents of dropped elements.
 */
export const RESIDUE = [
  /<\/?[a-z][^>]*>/i, /\{\{/, /\}\}/, /\{\|/, /\|\}/, /\[\[/, /\]\]/, /<!--/, /'''/,
  /分[類类]:/, /Category:/i, /文件:/, /File:/i, /Image:/i, /thumb/,
  /編者注|编者注/, /隋書|隋书/, /煬帝|炀帝/, /百分之一/, /frac/, /H2O/, /貢院|贡院/, /考卷/, /print/, /ImageSize/, /rect/,
  /僅在嵌入|仅在嵌入/, /Plainlist/, /Infobox/, /NoteTA/, /同名條目|同名条目/, /-\{/, /\}-/, /zh-(?:hans|hant|cn|tw)/,
];
