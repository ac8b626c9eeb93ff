import { bench, describe } from 'vitest';
import { chunkDocument, countCodePoints } from '../../src/chunking/chunker.js';
import { wikitextToArticle } from '../../src/corpus/wikipedia/wikitextToArticle.js';
import { DEFAULT_DROPPED_SECTIONS } from '../../src/corpus/wikipedia/builder.js';

// Micro-benchmarks of the per-document steps (the end-to-end figures come from scripts/bench-corpus.ts).
const sentence = '科舉是中國古代通過考試選拔官員的制度，始於隋朝，廢於清朝。';
const longText = Array.from({ length: 400 }, (_, i) => (i % 20 === 19 ? `${sentence}\n\n` : sentence)).join('');
const wikitext = `{{Infobox 制度|名稱=科舉}}\n'''科舉'''${sentence}<ref>{{cite book|title=某書}}</ref>\n\n== 歷史 ==\n${sentence.repeat(30)}\n{| class="wikitable"\n|-\n| 宋 || 三百\n|}\n[[Category:科舉]]`;

describe('corpus steps', () => {
  bench('chunkDocument: 12k characters into 512-char chunks', () => {
    chunkDocument({ docId: 'd', title: 't', text: longText, meta: {} }, { corpus: 'c', maxSize: 512, overlap: 64, measure: countCodePoints });
  });
  bench('wikitextToArticle: one 1 KB article, simplified', () => {
    wikitextToArticle(wikitext, { simplify: true, dropSections: DEFAULT_DROPPED_SECTIONS, disambiguationTemplates: [] });
  });
});
