import { createHash } from 'node:crypto';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

/** A seeded integer source: the same (seed, key) always gives the same sequence, whatever ran before. */
export interface SeededRandom {
  /** Uniform integer in [from, to], both included. */
  int(from: number, to: number): number;
}

/** Random stream for one benchmark item: seeded by the run seed and the item's id (or query text). */
export function seededRandom(seed: number, key: string): SeededRandom {
  const digest = createHash('sha256').update(`${seed}\u0000${key}`).digest();
  const rng = xoroshiro128plus(digest.readInt32LE(0));
  return { int: (from, to) => uniformInt(rng, from, to) };
}

/**
 * `count` distinct values from [0, n), drawn one after another uniformly among those not yet drawn
 * (rejection sampling), so the first j of a larger draw equal a draw of j: nested across k.
 */
export function drawDistinct(random: SeededRandom, n: number, count: number): number[] {
  if (count >= n / 2) return shuffled(random, Array.from({ length: n }, (_, i) => i)).slice(0, count);
  const chosen = new Set<number>();
  const out: number[] = [];
  while (out.length < count) {
    const pick = random.int(0, n - 1);
    if (chosen.has(pick)) continue;
    chosen.add(pick);
    out.push(pick);
  }
  return out;
}

/** Seeded Fisher–Yates shuffle (copy). */
export function shuffled<T>(random: SeededRandom, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
