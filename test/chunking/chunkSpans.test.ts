import { describe, expect, it } from 'vitest';
import { chunkDocument, chunkSpans, countCodePoints, type ChunkSpan } from '../../src/chunking/chunker.js';
import type { SectionedDocument } from '../../src/chunking/types.js';
import { mulberry32 as random } from '../../src/models/fixture/seededRandom.js';

/** A seeded generator (mulberry32), so that a failing document can be reproduced. */

const HAN = '天地玄黃宇宙洪荒日月盈昃辰宿列張寒來暑往秋收冬藏閏餘成歲律呂調陽';
const ENDS = ['。', '！', '？', '；', '……', '。」', '.'];
const GAPS = ['', '', '', ' ', '\u3000', '\n', '\n\n', ' \n  ', '\r\n'];

/** Text as builders give it: sentences of Han characters (a surrogate pair now and then, an over-long one), spaces, blank lines. */
function generatedText(next: () => number, sentences: number): string {
  let text = GAPS[Math.floor(next() * GAPS.length)]!;
  for (let i = 0; i < sentences; i++) {
    const length = next() < 0.1 ? 30 + Math.floor(next() * 40) : 1 + Math.floor(next() * 12);
    for (let j = 0; j < length; j++) text += next() < 0.05 ? '𠀀' : next() < 0.05 ? ' ' : HAN[Math.floor(next() * HAN.length)]!;
    text += ENDS[Math.floor(next() * ENDS.length)]! + GAPS[Math.floor(next() * GAPS.length)]!;
  }
  return text;
}

/** The documented relation of a chunk's text to its range: the same non-whitespace characters, in order. */
const chunkText = (text: string) => text.replace(/\s+/gu, '');
const textOf = (docs: Map<string, string>, span: ChunkSpan) => docs.get(span.doc)!.slice(span.start, span.end);

describe('chunk spans: where each chunk is in its document', () => {
  it('doc.text.slice(start, end) is the chunk text up to whitespace, and the range is tight, for any size, overlap and sections', () => {
    const next = random(43);
    for (let trial = 0; trial < 300; trial++) {
      const sections = Array.from({ length: 1 + Math.floor(next() * 3) }, (_, s) => ({ headings: s === 0 ? [] : [`節${s}`], text: generatedText(next, 1 + Math.floor(next() * 15)) }));
      const withSections = next() < 0.5;
      const doc: SectionedDocument = { docId: `d${trial}`, title: 't', meta: {}, text: sections.map((s) => s.text).join('\n\n'), ...(withSections ? { sections } : {}) };
      const maxSize = 8 + Math.floor(next() * 60);
      const overlap = Math.floor(next() * Math.min(20, maxSize));
      const headingPrefix = next() < 0.5;
      const chunks = chunkDocument(doc, { corpus: 'c', maxSize, overlap, measure: countCodePoints, headingPrefix });
      let lastStart = -1;
      for (const chunk of chunks) {
        const [span, ...more] = chunk.meta.spans as ChunkSpan[];
        expect(more).toEqual([]);
        expect(span!.doc).toBe(doc.docId);
        const range = doc.text.slice(span!.start, span!.end);
        const prefix = headingPrefix && chunk.meta.section ? `${chunk.meta.section}\n` : '';
        expect(chunkText(range), `trial ${trial}, chunk ${chunk.id}`).toBe(chunkText(chunk.text.slice(prefix.length)));
        expect(chunk.text.startsWith(prefix)).toBe(true);
        expect(range.trim()).toBe(range);
        expect(span!.start).toBeGreaterThan(lastStart);
        lastStart = span!.start;
      }
      // Every non-space character of the document is in some chunk.
      const covered = new Set<number>();
      for (const chunk of chunks) for (const span of chunk.meta.spans as ChunkSpan[]) for (let i = span.start; i < span.end; i++) covered.add(i);
      for (let i = 0; i < doc.text.length; i++) if (doc.text[i]!.trim()) expect(covered.has(i), `trial ${trial}: offset ${i}`).toBe(true);
    }
  });

  it('the fixed method cuts windows of at most maxSize, overlapping by at most overlap, each exactly its range of the text', () => {
    const next = random(7);
    for (let trial = 0; trial < 200; trial++) {
      const text = generatedText(next, 1 + Math.floor(next() * 12));
      const maxSize = 4 + Math.floor(next() * 40);
      const overlap = Math.floor(next() * maxSize);
      const headingPrefix = next() < 0.3;
      const doc: SectionedDocument = { docId: 'd', title: 't', meta: {}, text, ...(headingPrefix ? { sections: [{ headings: ['節'], text }] } : {}) };
      const chunks = chunkDocument(doc, { corpus: 'c', maxSize, overlap, measure: countCodePoints, headingPrefix, method: 'fixed' });
      const prefix = headingPrefix ? '節\n' : '';
      const budget = maxSize - (prefix ? 2 : 0);
      let previous: ChunkSpan | undefined;
      for (const chunk of chunks) {
        const span = (chunk.meta.spans as ChunkSpan[])[0]!;
        expect(prefix + text.slice(span.start, span.end), `trial ${trial}`).toBe(chunk.text);
        expect(countCodePoints(chunk.text.slice(prefix.length))).toBeLessThanOrEqual(budget);
        if (previous) {
          expect(span.start).toBeGreaterThan(previous.start);
          expect(countCodePoints(text.slice(span.start, Math.max(span.start, previous.end)))).toBeLessThanOrEqual(Math.min(overlap, budget - 1));
        }
        previous = span;
      }
      const covered = new Set<number>();
      for (const chunk of chunks) for (const span of chunk.meta.spans as ChunkSpan[]) for (let i = span.start; i < span.end; i++) covered.add(i);
      for (let i = 0; i < text.length; i++) if (text[i]!.trim()) expect(covered.has(i), `trial ${trial}: offset ${i}`).toBe(true);
    }
    // Sentences do not matter: a window ends mid-sentence.
    expect(chunkDocument({ docId: 'd', title: '', text: '一二三。四五六。', meta: {} }, { corpus: 'c', maxSize: 5, overlap: 2, measure: countCodePoints, method: 'fixed' }).map((c) => c.text)).toEqual(['一二三。四', '。四五六。']);
  });

  it('gives a chunk of a document that joins others (a page window) as spans of those documents', () => {
    const pages = new Map([['b-p1', '甲乙丙。丁戊。'], ['b-p2', '己庚。辛壬癸。']]);
    const text = `${pages.get('b-p1')}\n${pages.get('b-p2')}`;
    const doc: SectionedDocument = { docId: 'b', idKey: 'b-p1-2', title: 'b', meta: {}, text, parts: [{ doc: 'b-p1', start: 0, end: 7 }, { doc: 'b-p2', start: 8, end: 15 }] };
    const chunks = chunkDocument(doc, { corpus: 'c', maxSize: 9, overlap: 0, measure: countCodePoints });
    expect(chunks.map((c) => c.text)).toEqual(['甲乙丙。丁戊。', '己庚。辛壬癸。']);
    expect(chunks.map((c) => c.meta.spans)).toEqual([[{ doc: 'b-p1', start: 0, end: 7 }], [{ doc: 'b-p2', start: 0, end: 7 }]]);
    const across = chunkDocument(doc, { corpus: 'c', maxSize: 20, overlap: 0, measure: countCodePoints });
    expect(across[0]!.meta.spans).toEqual([{ doc: 'b-p1', start: 0, end: 7 }, { doc: 'b-p2', start: 0, end: 7 }]);
    expect((across[0]!.meta.spans as ChunkSpan[]).map((span) => textOf(pages, span)).join('\n')).toBe(across[0]!.text);
    expect(chunkSpans(doc, 2, 10)).toEqual([{ doc: 'b-p1', start: 2, end: 7 }, { doc: 'b-p2', start: 0, end: 2 }]);
  });
});
