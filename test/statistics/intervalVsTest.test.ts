import { describe, expect, it } from 'vitest';
import { pairedBootstrap } from '../../src/statistics/bootstrap.js';
import { intervalDisagreesWithTest } from '../../src/analysis/compare.js';
import { signFlipTest } from '../../src/statistics/pairedTest.js';

describe('a paired Δ whose bootstrap interval and sign-flip p disagree', () => {
  it('is found on 13 questions of which 4 gain: the interval leaves 0 out, the exact p is 2/16', () => {
    const gains = [0, 0, 0, 0, 0, 0, 0, 0, 0, 40, 60, 20, 80];
    const d = pairedBootstrap(gains, gains.map(() => 0), { resamples: 4000, seed: 1 });
    // A resample holds no gain with probability (9/13)^13 ≈ 0.008 < 0.025: the 2.5% quantile is above 0.
    expect(d.ciLow).toBeGreaterThan(0);
    // Only the nine zeros' signs are free when the four gains keep theirs (or all flip): 2·2⁹ of 2¹³ patterns.
    const test = signFlipTest(gains, undefined);
    expect(test).toEqual({ p: 2 / 16, flips: 8192, exact: true });
    expect(intervalDisagreesWithTest(d.ciLow, d.ciHigh, test.p, 0.95)).toBe(true);
    expect(intervalDisagreesWithTest(d.ciLow, d.ciHigh, test.p, 0.8)).toBe(false);
  });

  it('is not flagged when both say the same, or when either is missing', () => {
    expect(intervalDisagreesWithTest(1, 5, 0.01, 0.95)).toBe(false);
    expect(intervalDisagreesWithTest(-1, 5, 0.3, 0.95)).toBe(false);
    expect(intervalDisagreesWithTest(-1, 5, 0.01, 0.95)).toBe(true);
    expect(intervalDisagreesWithTest(-5, -1, 0.2, 0.95)).toBe(true);
    expect(intervalDisagreesWithTest(null, 5, 0.01, 0.95)).toBe(false);
    expect(intervalDisagreesWithTest(1, 5, null, 0.95)).toBe(false);
  });
});
