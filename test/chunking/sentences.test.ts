import { describe, expect, it } from 'vitest';
import { splitSentences } from '../../src/chunking/sentences.js';

describe('splitSentences', () => {
  it('splits at 。！？； and …… keeping each end mark with its sentence', () => {
    const texts = splitSentences('甲。乙！丙？丁；戊……己').map((s) => s.text);
    expect(texts).toEqual(['甲。', '乙！', '丙？', '丁；', '戊……', '己']);
  });

  it('keeps closing quotes and brackets with the sentence they close', () => {
    const texts = splitSentences('子曰：「學而時習之。」曾子曰（傳）。').map((s) => s.text);
    expect(texts).toEqual(['子曰：「學而時習之。」', '曾子曰（傳）。']);
  });

  it('starts a new paragraph at every line break and drops blank lines', () => {
    const sentences = splitSentences('一。二。\n\n三。');
    expect(sentences).toEqual([
      { text: '一。', paragraphStart: true, at: 0 },
      { text: '二。', paragraphStart: false, at: 2 },
      { text: '三。', paragraphStart: true, at: 6 },
    ]);
  });
});
