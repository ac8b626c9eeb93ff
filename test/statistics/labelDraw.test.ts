import { describe, expect, it } from 'vitest';
import { FastRandom } from '../../src/statistics/clusters.js';
import { drawLabelled, type LabelAllocation } from '../../src/statistics/labelDraw.js';

// The design: 8 topics of 20 questions and 40 topics of 1.
const clusters = new Map<string, string[]>([
  ...Array.from({ length: 8 }, (_, t) => [`large${t}`, Array.from({ length: 20 }, (_, i) => `L${t}-${i}`)] as [string, string[]]),
  ...Array.from({ length: 40 }, (_, t) => [`single${t}`, [`S${t}`]] as [string, string[]]),
]);
const all = [...clusters.values()].flat();

/** How often each question is drawn over `draws` seeded draws: the recorded π must be this frequency, checked without its formula. */
function frequencies(allocation: LabelAllocation, size: number, draws: number) {
  const counts = new Map(all.map((k) => [k, 0]));
  let recorded: Map<string, number> | undefined;
  for (let seed = 0; seed < draws; seed++) {
    const draw = drawLabelled(clusters, size, allocation, new FastRandom(seed));
    expect(new Set(draw.keys).size).toBe(size);
    for (const k of draw.keys) counts.set(k, counts.get(k)! + 1);
    recorded ??= draw.inclusion;
    // The inclusion probabilities do not depend on the seed, and add up to the sample size.
    expect([...draw.inclusion.values()].reduce((s, p) => s + p, 0)).toBeCloseTo(size, 9);
    expect(draw.inclusion).toEqual(recorded);
  }
  return { counts, recorded: recorded! };
}

describe('the label draw records inclusion probabilities that are the draw’s own', () => {
  it.each(['proportional', 'even'] as const)('%s: each question is drawn as often as its recorded π says', (allocation) => {
    const draws = 4000;
    const { counts, recorded } = frequencies(allocation, 40, draws);
    // Pooled over each kind of question (a large topic's, a single one's): within 4 standard errors.
    for (const prefix of ['L', 'S']) {
      const keys = all.filter((k) => k.startsWith(prefix));
      const pi = recorded.get(keys[0]!)!;
      for (const k of keys) expect(recorded.get(k)).toBe(pi);
      const observed = keys.reduce((s, k) => s + counts.get(k)!, 0) / (keys.length * draws);
      expect(Math.abs(observed - pi)).toBeLessThan(4 * Math.sqrt((pi * (1 - pi)) / (keys.length * draws)));
    }
  });

  it('proportional: every question 40/200; each cluster gets ⌊40·N_h/200⌋ or ⌈…⌉ questions', () => {
    const draw = drawLabelled(clusters, 40, 'proportional', new FastRandom(3));
    for (const p of draw.inclusion.values()) expect(p).toBeCloseTo(0.2, 12);
    for (const [, members] of clusters) {
      const got = members.filter((k) => draw.keys.includes(k)).length;
      expect(got === Math.floor((40 * members.length) / 200) || got === Math.ceil((40 * members.length) / 200)).toBe(true);
    }
  });

  it('even (round-robin): 40 of 48 topics give one question; a single topic’s question 40/48, a large topic’s 40/48 ÷ 20', () => {
    const { recorded } = frequencies('even', 40, 1);
    expect(recorded.get('S0')).toBeCloseTo(40 / 48, 12);
    expect(recorded.get('L0-0')).toBeCloseTo(40 / 48 / 20, 12);
    // 100 labels: every single topic whole (π = 1), the other 60 over the large topics' rounds.
    const hundred = drawLabelled(clusters, 100, 'even', new FastRandom(1)).inclusion;
    expect(hundred.get('S0')).toBe(1);
    expect(hundred.get('L3-7')).toBeCloseTo(60 / 160, 12);
    // Everything: every π is 1.
    for (const p of drawLabelled(clusters, 500, 'even', new FastRandom(1)).inclusion.values()) expect(p).toBe(1);
  });
});
