import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatNumber } from '../../src/report/planTable.js';

describe('formatNumber prints what toLocaleString("en-US") prints', () => {
  it('for hand-worked integers, and every integer and double fast-check draws, with and without fraction digits', () => {
    expect([0, 7, 999, 1000, 241840, -1234567, 2 ** 53 - 1].map((x) => formatNumber(x))).toEqual(['0', '7', '999', '1,000', '241,840', '-1,234,567', '9,007,199,254,740,991']);
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -1e12, max: 1e12 }), fc.maxSafeInteger(), fc.double({ noNaN: true }), fc.constant(-0)), fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }), (x, digits) => {
        const expected = x.toLocaleString('en-US', digits === undefined ? {} : { maximumFractionDigits: digits, minimumFractionDigits: digits });
        expect(formatNumber(x, digits)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
