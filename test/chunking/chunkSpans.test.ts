import { describe, expect, it } from 'vitest';
import { chunkDocument, chunkSpans, countCodePoints, type ChunkSpan } from '../../src/chunking/chunker.js';
import { spanMetrics } from '../../src/scoring/spanMetrics.js';
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
/** Spans are code-point offsets: Python's `text[start:end]`. */
const slicePoints = (text: string, start: number, end: number) => Array.from(text).slice(start, end).join('');
const textOf = (docs: Map<string, string>, span: ChunkSpan) => slicePoints(docs.get(span.doc)!, span.start, span.end);

/** Every code point of the text lies in some span (of document `doc`), and the spans lie within it. */
function expectCovered(text: string, spans: ChunkSpan[], label: string) {
  const length = Array.from(text).length;
  const covered = new Uint8Array(length);
  for (const span of spans) {
    expect(span.end, label).toBeLessThanOrEqual(length);
    covered.fill(1, span.start, span.end);
  }
  expect(covered.indexOf(0), `${label}: first code point in no chunk`).toBe(-1);
}

describe('chunk spans: where each chunk is in its document', () => {
  it('the range (code points) is the chunk text up to whitespace, and the ranges cover every character of the document, for any size, overlap and sections', () => {
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
        const range = slicePoints(doc.text, span!.start, span!.end);
        const prefix = headingPrefix && chunk.meta.section ? `${chunk.meta.section}\n` : '';
        expect(chunkText(range), `trial ${trial}, chunk ${chunk.id}`).toBe(chunkText(chunk.text.slice(prefix.length)));
        expect(chunk.text.startsWith(prefix)).toBe(true);
        // A range starts at its first non-space character (the first chunk: at the document's start) and runs on over whitespace only.
        if (lastStart >= 0) expect(range.trimStart()).toBe(range);
        expect(span!.start).toBeGreaterThan(lastStart);
        lastStart = span!.start;
      }
      // Every character of the document, whitespace between chunks included, is in some chunk.
      expectCovered(doc.text, chunks.flatMap((chunk) => chunk.meta.spans as ChunkSpan[]), `trial ${trial}`);
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
        const range = slicePoints(text, span.start, span.end);
        // The window's text is its range less the whitespace the range runs on over (the first's: also the document's leading whitespace).
        expect(prefix + (previous ? range : range.trimStart()).trimEnd(), `trial ${trial}`).toBe(chunk.text);
        expect(countCodePoints(chunk.text.slice(prefix.length))).toBeLessThanOrEqual(budget);
        if (previous) {
          expect(span.start).toBeGreaterThan(previous.start);
          expect(countCodePoints(slicePoints(text, span.start, Math.max(span.start, previous.end)))).toBeLessThanOrEqual(Math.min(overlap, budget - 1));
        }
        previous = span;
      }
      expectCovered(text, chunks.flatMap((chunk) => chunk.meta.spans as ChunkSpan[]), `trial ${trial}`);
    }
    // Sentences do not matter: a window ends mid-sentence.
    expect(chunkDocument({ docId: 'd', title: '', text: '一二三。四五六。', meta: {} }, { corpus: 'c', maxSize: 5, overlap: 2, measure: countCodePoints, method: 'fixed' }).map((c) => c.text)).toEqual(['一二三。四', '。四五六。']);
  });

  it('with every chunk of a newline-separated document retrieved, character recall is 1 for every chunking (issue 50)', () => {
    // Lines of 5 to 9 characters, a newline between them: at maxSize 12 nearly every chunk boundary is a newline.
    const next = random(50);
    const lines = Array.from({ length: 40 }, () => Array.from({ length: 4 + Math.floor(next() * 5) }, () => HAN[Math.floor(next() * HAN.length)]).join('') + '。');
    const text = lines.join('\n');
    const length = Array.from(text).length;
    const doc: SectionedDocument = { docId: 'n', title: 'n', meta: {}, text };
    for (const method of ['sentences', 'fixed'] as const) {
      for (const maxSize of [12, 16, 30, 64, 200]) {
        for (const overlap of [0, 4, 8]) {
          const chunks = chunkDocument(doc, { corpus: 'c', maxSize, overlap, measure: countCodePoints, method });
          const passages = chunks.map((chunk) => ({ spans: chunk.meta.spans as ChunkSpan[], chars: countCodePoints(chunk.text) }));
          const metrics = spanMetrics(passages, [{ doc: 'n', start: 0, end: length }])!;
          const label = `${method} maxSize ${maxSize} overlap ${overlap}`;
          expect(metrics.charRecall, label).toBe(1);
          expect(metrics.covered, label).toBe(1);
          // Without overlap the chunks tile the document: every retrieved character is gold, once.
          if (overlap === 0) expect(metrics.charPrecision, label).toBe(1);
          // Overlapping windows retrieve some text twice, and Chroma's precision counts it twice.
          if (overlap > 0 && method === 'fixed') expect(metrics.charPrecision, label).toBeLessThan(1);
        }
      }
    }
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
