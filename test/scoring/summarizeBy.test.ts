import { describe, expect, it } from 'vitest';
import { summarizeBy } from '../../src/scoring/summarizeBy.js';

describe('summarizeBy', () => {
  it('summarises overall and per key with bootstrap intervals', () => {
    const rows = [
      { type: 'Single Page', score: 100 },
      { type: 'Single Page', score: 0 },
      { type: 'Multi Hop', score: 50 },
    ];
    const result = summarizeBy(rows, (r) => r.score, (r) => r.type, { seed: 1 });
    expect(result.all).toMatchObject({ mean: 50, n: 3 });
    expect(Object.keys(result.groups)).toEqual(['Multi Hop', 'Single Page']);
    expect(result.groups['Single Page']).toMatchObject({ mean: 50, n: 2 });
    expect(result.groups['Multi Hop']).toMatchObject({ mean: 50, ciLow: 50, ciHigh: 50, n: 1 });
  });
});
