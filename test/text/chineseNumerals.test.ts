import { describe, expect, it } from 'vitest';
import { parseChineseNumeral, parseInteger } from '../../src/text/chineseNumerals.js';

describe('parseInteger', () => {
  it.each([
    ['三万二千四百五十', 32450],
    ['七十六千', 76000],
    ['五百亿', 50_000_000_000],
    ['十二', 12],
    ['十', 10],
    ['一百零五', 105],
    ['两千', 2000],
    ['廿', 20],
    ['壹万贰仟', 12000],
    ['一九四九', 1949],
    ['零', 0],
  ])('reads the Chinese numeral %s as %d', (text, value) => {
    expect(parseInteger(text)).toBe(value);
  });

  it('reads Arabic digits, thousands separators and full-width digits', () => {
    expect(parseInteger('32450')).toBe(32450);
    expect(parseInteger('1,234')).toBe(1234);
    expect(parseInteger('１２')).toBe(12);
  });

  it('reads Arabic digits with a 万 or 亿 unit', () => {
    expect(parseInteger('3万')).toBe(30000);
    expect(parseInteger('1.5万')).toBe(15000);
  });

  it('returns null for text that is not a numeral', () => {
    expect(parseInteger('伯牛')).toBeNull();
    expect(parseInteger('')).toBeNull();
    expect(parseInteger('3.5')).toBeNull();
    expect(parseChineseNumeral('12')).toBeNull();
  });
});
