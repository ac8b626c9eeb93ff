import { clusterSums, FastRandom } from './clusters.js';

export interface SignFlipOptions {
  /** Random sign patterns when the clusters are too many to enumerate (default 9,999). */
  flips?: number;
  seed?: number;
}

export interface SignFlipResult {
  /** Two-sided p-value of "no difference". */
  p: number;
  /** Sign patterns the p-value counts (2^clusters when `exact`). */
  flips: number;
  /** Every sign pattern was enumerated (few clusters): the p-value is exact. */
  exact: boolean;
}

/** Up to this many clusters every sign pattern is enumerated (2^13 = 8,192 patterns). */
const EXACT_UP_TO = 13;

/**
 * Paired sign-flip permutation test of mean(a − b) = 0, respecting clusters: under the null
 * hypothesis that the two conditions are exchangeable on each question, a cluster's summed
 * difference is as likely to have either sign, so the signs of whole clusters are flipped together
 * (Fisher's randomisation test; clustered as in Miller 2024 §4 and Canay, Romano & Shaikh 2017).
 * p = (1 + #{|Σ ±D_c| ≥ |Σ D_c|}) / (1 + flips) with random flips (Phipson & Smyth 2010: never
 * 0), or the exact share of all 2^C patterns when C ≤ 13. Without `clusters`, each question is a
 * cluster: the ordinary paired permutation test.
 */
export function signFlipTest(diffs: ArrayLike<number>, clusters: ArrayLike<string | number> | undefined, options: SignFlipOptions = {}): SignFlipResult {
  if (diffs.length === 0) return { p: NaN, flips: 0, exact: false };
  const { sums } = clusterSums(diffs, clusters);
  const C = sums.length;
  let observed = 0;
  for (let c = 0; c < C; c++) observed += sums[c]!;
  // A relative tolerance so that patterns equal to the observed sum up to rounding count as "as extreme".
  const threshold = Math.abs(observed) * (1 - 1e-12) - 1e-12;
  if (C <= EXACT_UP_TO) {
    const patterns = 2 ** C;
    let extreme = 0;
    for (let pattern = 0; pattern < patterns; pattern++) {
      let total = 0;
      for (let c = 0; c < C; c++) total += pattern & (1 << c) ? -sums[c]! : sums[c]!;
      if (Math.abs(total) >= threshold) extreme++;
    }
    return { p: extreme / patterns, flips: patterns, exact: true };
  }
  const flips = options.flips ?? 9999;
  const random = new FastRandom(options.seed ?? 0);
  let extreme = 0;
  for (let f = 0; f < flips; f++) {
    let total = 0;
    for (let c = 0; c < C; c += 32) {
      const bits = random.word();
      const end = Math.min(C, c + 32);
      // Branch-free: a random sign is a coin the branch predictor would miss half the time.
      for (let j = c; j < end; j++) total += sums[j]! * (1 - 2 * ((bits >>> (j - c)) & 1));
    }
    if (Math.abs(total) >= threshold) extreme++;
  }
  return { p: (1 + extreme) / (1 + flips), flips, exact: false };
}
