import { describe, expect, it } from 'vitest';
import { spanMetrics } from '../../src/scoring/spanMetrics.js';

const passage = (doc: string, start: number, end: number, chars = end - start) => ({ spans: [{ doc, start, end }], chars });

// Hand-worked cases of the definitions in src/scoring/spanMetrics.ts; test/scoring/chromaSpanGolden.test.ts
// checks recall, precision and IoU against the values of Chroma's reference function.
describe('spanMetrics: Chroma\'s character recall, precision and IoU, and the smallest covering k', () => {
  it('counts each retrieved range in precision\'s denominator, overlapping text as often as it is retrieved', () => {
    // Gold: a[10, 20) and b[0, 5) (a[12, 18) inside the first) = 15 characters. Retrieved: a[0, 15) and a[12, 30): 15 + 18 = 33
    // characters, 30 distinct; found: a[10, 20) = 10.
    const metrics = spanMetrics([passage('a', 0, 15), passage('a', 12, 30)], [{ doc: 'a', start: 10, end: 20 }, { doc: 'b', start: 0, end: 5 }, { doc: 'a', start: 12, end: 18 }])!;
    expect(metrics.charRecall).toBeCloseTo(10 / 15, 12);
    expect(metrics.charPrecision).toBeCloseTo(10 / 33, 12);
    // Chroma's IoU: retrieved lengths plus the gold left unretrieved (b[0, 5)).
    expect(metrics.charIoU).toBeCloseTo(10 / (33 + 5), 12);
    expect(metrics.covered).toBe(0);
    expect(metrics.coverK).toBeUndefined();
  });

  it('gives the smallest k whose top passages cover the gold, and the context characters up to it', () => {
    const list = [passage('x', 0, 50), passage('a', 0, 8, 9), passage('a', 100, 120), passage('a', 6, 12, 7), passage('a', 0, 12)];
    // Retrieved: 50 + 8 + 20 + 6 + 12 = 96 characters; gold a[2, 10) found whole.
    expect(spanMetrics(list, [{ doc: 'a', start: 2, end: 10 }])).toEqual({ charRecall: 1, charPrecision: 8 / 96, charIoU: 8 / 96, covered: 1, coverK: 4, coverChars: 50 + 9 + 20 + 7 });
    expect(spanMetrics(list, [])).toBeUndefined();
    expect(spanMetrics([], [{ doc: 'a', start: 0, end: 1 }])).toEqual({ charRecall: 0, charPrecision: 0, charIoU: 0, covered: 0 });
  });

  it('counts a passage without spans by its text in the denominators, and names how many there were', () => {
    const metrics = spanMetrics([{ spans: [], chars: 10 }, passage('a', 0, 5)], [{ doc: 'a', start: 0, end: 5 }])!;
    expect(metrics).toEqual({ charRecall: 1, charPrecision: 5 / 15, charIoU: 5 / 15, covered: 1, coverK: 2, coverChars: 15, spanlessPassages: 1 });
  });

  it('counts a gold character once where gold spans overlap', () => {
    // Gold a[0, 10) and a[5, 15): 15 characters, all retrieved.
    expect(spanMetrics([passage('a', 0, 15)], [{ doc: 'a', start: 0, end: 10 }, { doc: 'a', start: 5, end: 15 }])).toMatchObject({ charRecall: 1, charPrecision: 1, charIoU: 1 });
  });
});
