import { describe, expect, it } from 'vitest';
import { displayWidth, renderTextTable } from '../../src/report/table.js';

// Widths as Unicode's East Asian Width gives them (Python's unicodedata.east_asian_width: W or F → 2):
// 𠀀 U+20000 (Extension B), 𪜀 U+2A700 (Extension C) and U+2F800 (compatibility supplement) are W.
describe('terminal table widths', () => {
  it('gives CJK characters of every plane two columns, Extension B included', () => {
    expect(displayWidth('𠀀')).toBe(2);
    expect(displayWidth(`𪜀${String.fromCodePoint(0x2f800)}`)).toBe(4);
    expect(displayWidth('甲，。')).toBe(6);
    expect(displayWidth('rag@10')).toBe(6);
  });

  it('lines up a column holding Extension B characters', () => {
    const table = renderTextTable(['book', 'n'], [['𠀀𠀁志', '1'], ['史記', '22']]).split('\n');
    // The numbers are right-aligned: every line ends at the same display column.
    expect(table.map(displayWidth)).toEqual([10, 10, 10, 10]);
    expect(table[2]).toBe('𠀀𠀁志   1');
  });
});
