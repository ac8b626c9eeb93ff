import { describe, expect, it } from 'vitest';
import { placeGoldSpans } from '../../src/benchmarks/goldSpans.js';
import type { BenchmarkItem } from '../../src/benchmarks/types.js';
import type { CorpusDocument } from '../../src/runFiles/corpusFiles.js';

const documents: CorpusDocument[] = [
  { doc: 'a', docId: 'a', text: '明朝科举制度，分乡试、会试、殿试三级。' },
  { doc: 'b', docId: 'b', text: '清代沿袭明制，\n乡试 三年一次，称为“大比”。会试在京师举行。' },
  { doc: 'a', docId: 'a', text: '明朝科举制度，分乡试、会试、殿试三级。' },
  { doc: 'book-p1', docId: 'book', text: '卷一。张居正，字叔大。' },
  { doc: 'book-p2', docId: 'book', text: '卷二。万历元年，张居正为首辅，张居正改革。' },
];
const read = async function* () {
  yield* documents;
};
const item = (id: string, extra: Partial<BenchmarkItem>): BenchmarkItem => ({ id, benchmark: 'b', kind: 'reference', question: 'q', category: 'c', meta: {}, ...extra });

describe('placeGoldSpans: gold evidence as character spans of the corpus documents', () => {
  it('keeps given spans, places evidence text exactly (the item\'s own document first), else ignoring whitespace and punctuation, and lists what it cannot place', async () => {
    const { spans, unplaced } = await placeGoldSpans(
      [
        { key: 'given', item: item('given', { goldSpans: [{ doc: 'a', start: 0, end: 2 }] }) },
        { key: 'exact', item: item('exact', { goldEvidence: ['会试'] }) },
        { key: 'own', item: item('own', { goldEvidence: ['会试'], docId: 'b' }) },
        { key: 'fuzzy', item: item('fuzzy', { goldEvidence: ['乡试三年一次，称为"大比"'] }) },
        { key: 'lost', item: item('lost', { goldEvidence: ['状元及第', '殿试'], origin: 'qa.jsonl: line 5' }) },
        { key: 'none', item: item('none', {}) },
      ],
      read,
    );
    expect(spans.get('given')).toEqual([{ doc: 'a', start: 0, end: 2 }]);
    expect(spans.get('exact')).toEqual([{ doc: 'a', start: 11, end: 13 }]);
    expect(spans.get('own')).toEqual([{ doc: 'b', start: 23, end: 25 }]);
    const fuzzy = spans.get('fuzzy')![0]!;
    expect(documents[1]!.text.slice(fuzzy.start, fuzzy.end)).toBe('乡试 三年一次，称为“大比');
    expect(spans.get('lost')).toEqual([{ doc: 'a', start: 14, end: 16 }]);
    expect(unplaced).toEqual([{ key: 'lost', origin: 'qa.jsonl: line 5', text: '状元及第' }]);
    expect(spans.has('none')).toBe(false);
  });

  it('makes LongHisDoc evidence pages whole-page spans, or the answer\'s occurrences on them where it occurs', async () => {
    const { spans } = await placeGoldSpans(
      [
        { key: 'answer', item: item('answer', { kind: 'longhisdoc', docId: 'book', evidencePages: [1, 2], answer: '张居正', answerType: 'Str' }) },
        { key: 'bool', item: item('bool', { kind: 'longhisdoc', docId: 'book', evidencePages: [2], answer: '是', answerType: 'Bool' }) },
        { key: 'list', item: item('list', { kind: 'longhisdoc', docId: 'book', evidencePages: [2], answer: ['万历', 1], answerType: 'List' }) },
      ],
      read,
    );
    expect(spans.get('answer')).toEqual([{ doc: 'book-p1', start: 3, end: 6 }, { doc: 'book-p2', start: 8, end: 11 }, { doc: 'book-p2', start: 15, end: 18 }]);
    expect(spans.get('bool')).toEqual([{ doc: 'book-p2', start: 0, end: 21 }]);
    // "1" is too short to stand for its evidence; 万历 is there.
    expect(spans.get('list')).toEqual([{ doc: 'book-p2', start: 3, end: 5 }]);
  });

  it('gives spans in code points, as Python counts them, after and within Extension B characters, exactly and by the fuzzy rule', async () => {
    // 𠀀 and 𠀁 are one code point each (two UTF-16 units).
    const text = '𠀀𠀁甲，乙丙。𠀂丁';
    const { spans } = await placeGoldSpans(
      [
        { key: 'exact', item: item('exact', { goldEvidence: ['乙丙'] }) },
        { key: 'fuzzy', item: item('fuzzy', { goldEvidence: ['甲乙丙'] }) },
        { key: 'wide', item: item('wide', { goldEvidence: ['𠀁甲 乙'] }) },
        { key: 'after', item: item('after', { goldEvidence: ['丙𠀂丁'] }) },
      ],
      async function* () {
        yield { doc: 'x', docId: 'x', text };
      },
    );
    expect(spans.get('exact')).toEqual([{ doc: 'x', start: 4, end: 6 }]);
    expect(spans.get('fuzzy')).toEqual([{ doc: 'x', start: 2, end: 6 }]);
    expect(spans.get('wide')).toEqual([{ doc: 'x', start: 1, end: 5 }]);
    expect(spans.get('after')).toEqual([{ doc: 'x', start: 5, end: 9 }]);
  });
});
