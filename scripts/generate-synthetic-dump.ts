/**
 * Writes a synthetic zhwiki-style `pages-articles` XML dump (MediaWiki export schema 0.11) of a
 * given size, for throughput benchmarks of the wikipedia-dump builder. The wikitext is shaped like
 * real zhwiki articles: infobox and inline templates, <ref>s with {{cite book}}, links with and
 * without labels, bold lead, nested headings, wikitables, files, lists, categories; plus redirects,
 * disambiguation pages and talk pages. Text is random Chinese from common characters (traditional
 * and simplified), deterministic from --seed.
 *
 *   node --import tsx scripts/generate-synthetic-dump.ts --out /tmp/synthetic.xml --mb 220 [--seed 1]
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { mulberry32 } from '../src/models/fixture/seededRandom.js';

const { values } = parseArgs({
  options: { out: { type: 'string' }, mb: { type: 'string', default: '220' }, seed: { type: 'string', default: '1' } },
});
if (!values.out) {
  process.stderr.write('usage: generate-synthetic-dump.ts --out <file.xml> [--mb 220] [--seed 1]\n');
  process.exit(2);
}
const targetBytes = Number(values.mb) * 1024 * 1024;

// Seeded, so the same seed gives the same dump.
const random = mulberry32(Number(values.seed));
const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const CHARS = Array.from(
  '的一是在不了有和人這中大為上個國我以要他時來用們生到作地於出就分對成會可主發年動同工也能下過子說產種面而方後多定行學法所民得經十三之進著等部度家電力裏如水化高自二理起小物現實加量都兩體制機當使點從業本去把性好應開它合還因由其些然前外天政四日那社義事平形相全表間樣與關各重新線內數正心反你明看原又麼利比或但質氣第向道命此變條只沒結解問意建月公無系軍很情者最立代想已通並提直題黨程展五果料象員革位入常文總次品式活設及管特件長求老頭基資邊流路級少圖山統接知較將組見計別她手角期根論運農指幾九區強放決西被幹做必戰先回則任取據處隊南給色光門即保治北造百規熱領七海口東導器壓志世金增爭濟階油思術極交受聯什認六共權收證改清己美再採轉更單風切打白教速花帶安場身車例真務具萬每目至達走積示議聲報鬥完類八離華名確才科張信馬節話米整空元況今集溫傳土許步群廣石記需段研界拉林律叫且究觀越織裝影算低持音眾書布复容兒須際商非驗連斷深難近礦千週委素技備半辦青省列習響約支般史感勞便團往酸歷市克何除消構府稱太準精值號率族維劃選標寫存候毛親快效斯院查江型眼王按格養易置派層片始卻專狀育廠京識適屬圓包火住調滿縣局照參紅細引聽該鐵價嚴',
);
const PUNCT = ['，', '，', '，', '、', '；'];
const ENDS = ['。', '。', '。', '。', '！', '？'];
function phrase(min: number, max: number): string {
  let s = '';
  for (let i = int(min, max); i > 0; i--) s += pick(CHARS);
  return s;
}
const titles: string[] = [];
function link(): string {
  const target = titles.length > 0 && random() < 0.8 ? pick(titles) : phrase(2, 4);
  return random() < 0.3 ? `[[${target}|${phrase(2, 3)}]]` : `[[${target}]]`;
}
function sentence(): string {
  let s = '';
  for (let clauses = int(1, 4); clauses > 0; clauses--) {
    s += phrase(3, 10);
    if (random() < 0.35) s += link();
    if (random() < 0.08) s += `（${int(600, 1900)}年—${int(600, 1900)}年）`;
    if (random() < 0.05) s += `{{lang|zh-hant|${phrase(2, 3)}}}`;
    s += clauses > 1 ? pick(PUNCT) : pick(ENDS);
  }
  if (random() < 0.15) s += `<ref name="r${int(1, 9)}">{{cite book|title=${phrase(3, 6)}|author=${phrase(2, 3)}|year=${int(1950, 2020)}|page=${int(1, 500)}}}</ref>`;
  else if (random() < 0.05) s += `<ref>${phrase(5, 12)}。</ref>`;
  if (random() < 0.03) s += '{{來源請求|time=2020-01-01}}';
  return s;
}
const paragraph = () => Array.from({ length: int(2, 7) }, sentence).join('');
function table(): string {
  const rows = Array.from({ length: int(2, 6) }, () => `|-\n| ${phrase(2, 4)} || ${int(1, 999)} || ${phrase(2, 6)}`);
  return `{| class="wikitable"\n|-\n! ${phrase(2, 3)} !! ${phrase(2, 3)} !! ${phrase(2, 3)}\n${rows.join('\n')}\n|}`;
}
function article(title: string): string {
  const parts: string[] = [];
  parts.push(`{{Infobox ${pick(['person', '歷史事件', '行政區', '書籍'])}\n| 名稱 = ${title}\n| 朝代 = ${phrase(1, 2)}\n| 生年 = ${int(600, 1900)}年\n| image = ${phrase(2, 3)}.jpg\n}}`);
  parts.push(`'''${title}'''${paragraph()}`);
  for (let s = int(1, 5); s > 0; s--) {
    parts.push(`== ${phrase(2, 4)} ==`);
    if (random() < 0.2) parts.push(`[[File:${phrase(2, 4)}.jpg|thumb|${phrase(3, 8)}]]`);
    for (let p = int(1, 3); p > 0; p--) parts.push(paragraph());
    if (random() < 0.4) {
      parts.push(`=== ${phrase(2, 4)} ===`);
      parts.push(paragraph());
    }
    if (random() < 0.2) parts.push(table());
    if (random() < 0.2) parts.push(Array.from({ length: int(2, 5) }, () => `* ${link()}${phrase(2, 8)}`).join('\n'));
  }
  parts.push(`== 參考文獻 ==\n{{reflist}}\n\n== 外部連結 ==\n* [https://example.org/${int(1, 1e6)} ${phrase(3, 6)}]`);
  for (let c = int(1, 4); c > 0; c--) parts.push(`[[Category:${phrase(2, 5)}]]`);
  return parts.join('\n\n');
}
const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const out = createWriteStream(values.out);
let written = 0;
async function write(text: string): Promise<void> {
  written += Buffer.byteLength(text);
  if (!out.write(text)) await once(out, 'drain');
}

await write(`<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="zh">
  <siteinfo>
    <sitename>Wikipedia</sitename>
    <dbname>zhwiki</dbname>
    <base>https://zh.wikipedia.org/wiki/Wikipedia:%E9%A6%96%E9%A1%B5</base>
    <generator>hisrag synthetic dump</generator>
    <case>first-letter</case>
  </siteinfo>
`);
let id = 0;
let pages = 0;
while (written < targetBytes) {
  id++;
  const roll = random();
  let title = phrase(2, 5);
  let ns = 0;
  let body: string;
  let redirect = '';
  if (roll < 0.08 && titles.length > 0) {
    const target = pick(titles);
    redirect = `    <redirect title="${escapeXml(target)}" />\n`;
    body = `#REDIRECT [[${target}]]`;
  } else if (roll < 0.1) {
    title = `${title} (消歧義)`;
    body = `'''${title}'''可以指：\n${Array.from({ length: int(2, 5) }, () => `* ${link()}`).join('\n')}\n{{disambig}}`;
  } else if (roll < 0.14) {
    ns = 1;
    title = `Talk:${title}`;
    body = paragraph();
  } else {
    body = article(title);
    if (titles.length < 5000) titles.push(title);
    else titles[int(0, titles.length - 1)] = title;
  }
  const text = escapeXml(body);
  await write(`  <page>
    <title>${escapeXml(title)}</title>
    <ns>${ns}</ns>
    <id>${id}</id>
${redirect}    <revision>
      <id>${id + 1_000_000}</id>
      <timestamp>2024-01-01T00:00:00Z</timestamp>
      <model>wikitext</model>
      <format>text/x-wiki</format>
      <text bytes="${Buffer.byteLength(body)}" xml:space="preserve">${text}</text>
    </revision>
  </page>
`);
  pages++;
}
await write('</mediawiki>\n');
out.end();
await once(out, 'finish');
process.stderr.write(`wrote ${values.out}: ${(written / 1048576).toFixed(1)} MiB, ${pages} pages\n`);
