/**
 * Code points, the one character unit of chunk sizes, spans, gold spans and span metrics: a CJK
 * Extension B character (U+20000 and up, two UTF-16 units) counts one, as Python's `str` counts it.
 */

/** Code points of a text: UTF-16 units less one per surrogate pair (a lone surrogate counts one, as the string iterator has it). */
export function codePointLength(text: string): number {
  // A charCodeAt loop, several times faster than iterating; chunking calls it per sentence.
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

const SURROGATE = /[\ud800-\udfff]/;

/**
 * The code-point offset of each UTF-16 offset of a text (`offset(i)` for 0 ≤ i ≤ text.length; an offset
 * inside a surrogate pair gives the pair's own code point). The identity, with no table, when the
 * text has no surrogates — nearly every text.
 */
export function codePointOffsets(text: string): (utf16: number) => number {
  if (!SURROGATE.test(text)) return (utf16) => utf16;
  const table = new Uint32Array(text.length + 1);
  let points = 0;
  for (let i = 0; i < text.length; i++) {
    table[i] = points;
    const unit = text.charCodeAt(i);
    const pair = unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && text.charCodeAt(i + 1) >= 0xdc00 && text.charCodeAt(i + 1) <= 0xdfff;
    if (pair) table[++i] = points;
    points++;
  }
  table[text.length] = points;
  return (utf16) => table[utf16]!;
}

/** The text between code-point offsets [start, end) (what Python's `text[start:end]` gives). */
export function sliceCodePoints(text: string, start: number, end: number): string {
  if (!SURROGATE.test(text)) return text.slice(start, end);
  return Array.from(text).slice(start, end).join('');
}
