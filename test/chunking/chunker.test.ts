import { describe, expect, it } from 'vitest';
import { chunkDocument, countCodePoints } from '../../src/chunking/chunker.js';

const settings = (maxSize: number, overlap = 0) => ({ corpus: 'c', maxSize, overlap, measure: countCodePoints });

describe('chunkDocument', () => {
  it('packs whole sentences up to maxSize characters', () => {
    const chunks = chunkDocument({ docId: 'd', title: 't', text: '一二三。四五六。七八九。', meta: {} }, settings(8));
    expect(chunks.map((c) => c.text)).toEqual(['一二三。四五六。', '七八九。']);
  });

  it('gives deterministic ids <corpus>:<docId>:<n> and copies title and meta', () => {
    const chunks = chunkDocument({ docId: '42', title: '標題', text: '甲乙。丙丁。', meta: { url: 'u' } }, settings(3));
    expect(chunks.map((c) => c.id)).toEqual(['c:42:0', 'c:42:1']);
    expect(chunks[1]).toMatchObject({ docId: '42', title: '標題', meta: { url: 'u' } });
  });

  it('cuts an over-long sentence at code points without splitting a surrogate pair', () => {
    const text = '𠀀𠀁𠀂𠀃𠀄𠀅𠀆。';
    const chunks = chunkDocument({ docId: 'd', title: '', text, meta: {} }, settings(3));
    expect(chunks.map((c) => c.text)).toEqual(['𠀀𠀁𠀂', '𠀃𠀄𠀅', '𠀆。']);
    for (const chunk of chunks) expect(chunk.text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('never exceeds maxSize', () => {
    const text = Array.from({ length: 40 }, (_, i) => '字'.repeat((i * 7) % 13 + 1) + '。').join('');
    const chunks = chunkDocument({ docId: 'd', title: '', text, meta: {} }, settings(10, 4));
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) expect(countCodePoints(chunk.text)).toBeLessThanOrEqual(10);
  });

  it('repeats trailing sentences that fit in the overlap at the start of the next chunk', () => {
    const chunks = chunkDocument({ docId: 'd', title: '', text: '甲甲。乙乙。丙丙。丁丁。', meta: {} }, settings(6, 3));
    expect(chunks.map((c) => c.text)).toEqual(['甲甲。乙乙。', '乙乙。丙丙。', '丙丙。丁丁。']);
  });

  it('joins paragraphs with a newline inside a chunk', () => {
    const chunks = chunkDocument({ docId: 'd', title: '', text: '甲。\n\n乙。', meta: {} }, settings(10));
    expect(chunks.map((c) => c.text)).toEqual(['甲。\n乙。']);
  });

  it('keeps sections apart and records the heading path in meta.section', () => {
    const doc = {
      docId: 'd',
      title: 't',
      text: '',
      meta: {},
      sections: [
        { headings: [], text: '導言。' },
        { headings: ['生平', '仕途'], text: '任官。' },
      ],
    };
    const chunks = chunkDocument(doc, settings(100));
    expect(chunks.map((c) => [c.text, c.meta.section])).toEqual([
      ['導言。', undefined],
      ['任官。', '生平 > 仕途'],
    ]);
  });

  it('prefixes the heading path when headingPrefix is on, within maxSize', () => {
    const doc = { docId: 'd', title: 't', text: '', meta: {}, sections: [{ headings: ['生平'], text: '甲乙丙。丁戊己。' }] };
    const chunks = chunkDocument(doc, { ...settings(7), headingPrefix: true });
    expect(chunks.map((c) => c.text)).toEqual(['生平\n甲乙丙。', '生平\n丁戊己。']);
  });

  it('yields no chunk for an empty text', () => {
    expect(chunkDocument({ docId: 'd', title: '', text: ' \n ', meta: {} }, settings(10))).toEqual([]);
  });
});
