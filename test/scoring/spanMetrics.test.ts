import { describe, expect, it } from 'vitest';
import { spanMetrics } from '../../src/scoring/spanMetrics.js';

const passage = (doc: string, start: number, end: number, chars = end - start) => ({ spans: [{ doc, start, end }], chars });

describe('spanMetrics: Chroma-style character recall, precision and IoU, and the smallest covering k', () => {
  it('measures the union of retrieved ranges against the union of gold ranges', () => {
    // Gold: a[10, 20) and b[0, 5) = 15 characters. Retrieved: a[0, 15) and a[12, 30) (overlapping) = a[0, 30), 30 characters.
    const metrics = spanMetrics([passage('a', 0, 15), passage('a', 12, 30)], [{ doc: 'a', start: 10, end: 20 }, { doc: 'b', start: 0, end: 5 }, { doc: 'a', start: 12, end: 18 }])!;
    expect(metrics.charRecall).toBeCloseTo(10 / 15, 12);
    expect(metrics.charPrecision).toBeCloseTo(10 / 30, 12);
    expect(metrics.charIoU).toBeCloseTo(10 / 35, 12);
    expect(metrics.covered).toBe(0);
    expect(metrics.coverK).toBeUndefined();
  });

  it('gives the smallest k whose top passages cover the gold, and the context characters up to it', () => {
    const list = [passage('x', 0, 50), passage('a', 0, 8, 9), passage('a', 100, 120), passage('a', 6, 12, 7), passage('a', 0, 12)];
    expect(spanMetrics(list, [{ doc: 'a', start: 2, end: 10 }])).toEqual({ charRecall: 1, charPrecision: 8 / (50 + 12 + 20), charIoU: 8 / 82, covered: 1, coverK: 4, coverChars: 50 + 9 + 20 + 7 });
    expect(spanMetrics(list, [])).toBeUndefined();
    expect(spanMetrics([], [{ doc: 'a', start: 0, end: 1 }])).toEqual({ charRecall: 0, charPrecision: 0, charIoU: 0, covered: 0 });
  });
});
