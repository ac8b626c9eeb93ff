import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/text/tokenCounter.js';

/** The estimate as documented: one token per CJK character or CJK punctuation mark (a match of this class), a quarter token per other UTF-16 unit, rounded up. */
const CJK_CLASS = /[\p{Script=Han}\u3000-\u303f\uff00-\uffef]/gu;
const byDefinition = (text: string) => {
  const cjk = text.match(CJK_CLASS)?.length ?? 0;
  return cjk + Math.ceil((text.length - cjk) / 4);
};

describe('estimateTokens', () => {
  it('counts hand-worked texts', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('科舉制度')).toBe(4);
    // 4 CJK (3 Han and the ideographic full stop) + 5 ASCII units (2 tokens)
    expect(estimateTokens('hello隋朝始。')).toBe(6);
    // An astral Han character (U+20000): one token, its second UTF-16 unit a quarter token.
    expect(estimateTokens('\u{20000}')).toBe(2);
    // Lone surrogates are not CJK.
    expect(estimateTokens('\ud840')).toBe(1);
    expect(estimateTokens('\udc00\ud840')).toBe(1);
  });

  it('agrees with the regex definition on any text, surrogates and astral characters included', () => {
    const unit = fc.oneof(
      fc.integer({ min: 0x4e00, max: 0x9fff }).map((c) => String.fromCharCode(c)),
      fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
      fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
      fc.integer({ min: 0x10000, max: 0x3ffff }).map((c) => String.fromCodePoint(c)),
    );
    fc.assert(fc.property(fc.array(unit, { maxLength: 40 }).map((units) => units.join('')), (text) => estimateTokens(text) === byDefinition(text)), { numRuns: 3000 });
  });
});
