import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

/**
 * Per-question values gathered by cluster (a LongHisDoc volume, a dynasty …): each cluster's sum and
 * count, computed once, so that a resample over clusters costs one addition per drawn cluster, not
 * one per question. A question without a cluster is its own cluster (`clusters` omitted: every
 * question is), which makes the clustered estimators the plain ones over questions.
 */
export interface ClusterSums {
  /** Sum of the values of each cluster, in order of first appearance. */
  sums: Float64Array;
  /** Questions in each cluster. */
  counts: Float64Array;
  /** Questions in all. */
  n: number;
  /** Mean over all questions. */
  mean: number;
  /** Each question's cluster (its index in `sums`). */
  clusterOf: Int32Array;
}

/** Gathers `values[i]` into the cluster `clusters[i]` (every question its own cluster when `clusters` is omitted). */
export function clusterSums(values: ArrayLike<number>, clusters?: ArrayLike<string | number>): ClusterSums {
  if (clusters && clusters.length !== values.length) throw new Error(`clusterSums: ${values.length} values but ${clusters.length} cluster keys`);
  const index = new Map<string | number, number>();
  const sums: number[] = [];
  const counts: number[] = [];
  const clusterOf = new Int32Array(values.length);
  let total = 0;
  for (let i = 0; i < values.length; i++) {
    const key = clusters ? clusters[i]! : i;
    let c = index.get(key);
    if (c === undefined) {
      c = sums.length;
      index.set(key, c);
      sums.push(0);
      counts.push(0);
    }
    clusterOf[i] = c;
    sums[c]! += values[i]!;
    counts[c]! += 1;
    total += values[i]!;
  }
  return { sums: Float64Array.from(sums), counts: Float64Array.from(counts), n: values.length, mean: values.length ? total / values.length : NaN, clusterOf };
}

/**
 * Variances of the mean: the plain one over questions (s²/n) and the cluster-robust one,
 * n⁻² · C/(C−1) · Σ_c (Σ_{i∈c} (x_i − x̄))², and their ratio, the design effect — the formula of
 * *Adding Error Bars to Evals* (Miller 2024, Appendix A) that Inspect's `stderr(cluster=…)` uses.
 * Closed-form, so it does not depend on the bootstrap's seed. `designEffect` is null when the values
 * do not vary (both variances 0) or there is a single cluster. Without `clusters` each question is one.
 */
export function designEffect(values: ArrayLike<number>, clusters?: ArrayLike<string | number>): { iidVariance: number; clusteredVariance: number; designEffect: number | null } {
  const n = values.length;
  const grouped = clusterSums(values, clusters);
  const C = grouped.sums.length;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (values[i]! - grouped.mean) ** 2;
  const iidVariance = n > 1 ? squares / (n - 1) / n : NaN;
  let between = 0;
  for (let c = 0; c < C; c++) between += (grouped.sums[c]! - grouped.counts[c]! * grouped.mean) ** 2;
  const clusteredVariance = C > 1 ? ((C / (C - 1)) * between) / (n * n) : NaN;
  const ratio = iidVariance > 0 && C > 1 ? clusteredVariance / iidVariance : null;
  return { iidVariance, clusteredVariance, designEffect: ratio };
}

/**
 * Marsaglia's xorshift128 (2003), seeded from pure-rand's xoroshiro128+: the resampling loops draw
 * hundreds of millions of indexes (10,000 resamples × 400 clusters × 128 comparisons), and a
 * generator whose state lives in four int32 fields of one object is inlined by V8 — several times
 * faster than a call into a generic generator per draw.
 */
export class FastRandom {
  private x: number;
  private y: number;
  private z: number;
  private w: number;
  constructor(seed: number) {
    const seeder = xoroshiro128plus(seed);
    this.x = seeder.next() | 1;
    this.y = seeder.next();
    this.z = seeder.next();
    this.w = seeder.next();
  }
  /** A uniform 32-bit word. */
  word(): number {
    const t = this.x ^ (this.x << 11);
    this.x = this.y;
    this.y = this.z;
    this.z = this.w;
    this.w = this.w ^ (this.w >>> 19) ^ (t ^ (t >>> 8));
    return this.w >>> 0;
  }
  /** A uniform index in [0, count): the word scaled (Lemire's multiply, no modulo). */
  index(count: number): number {
    return Math.floor(this.word() * (count / 4294967296));
  }
}
