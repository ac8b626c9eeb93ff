/**
 * Agreement between raters (a judge and a historian, two historians, a panel): Pearson's r with a
 * Fisher-z or cluster-bootstrap interval, Cohen's κ for two raters, Krippendorff's α (nominal, any
 * number of raters, missing labels allowed), each with an interval from the bootstrap over units
 * (or over clusters of units: a rubric item's answer, an answer's volume). Every statistic is a
 * function of totals that add over units, so the bootstrap is `bootstrapTotals`.
 */
import type { BootstrapOptions } from './bootstrap.js';
import { bootstrapTotals, clusterTotals, grandTotals } from './clusterTotals.js';
import { normalQuantile } from './power.js';

/** Pearson's r (NaN when either side has no variance or fewer than two pairs). */
export function pearson(x: readonly number[], y: readonly number[]): number {
  const n = Math.min(x.length, y.length);
  if (n < 2) return NaN;
  const mx = x.slice(0, n).reduce((s, v) => s + v, 0) / n;
  const my = y.slice(0, n).reduce((s, v) => s + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx === 0 || syy === 0 ? NaN : sxy / Math.sqrt(sxx * syy);
}

export interface AgreementOptions extends BootstrapOptions {
  /** One key per unit (per pair for r and κ): units sharing a key are resampled together. */
  clusters?: ArrayLike<string | number>;
}

export interface AgreementEstimate {
  value: number;
  ciLow: number;
  ciHigh: number;
  /** Units the statistic is computed on. */
  units: number;
}

export interface CorrelationEstimate extends AgreementEstimate {
  /** `fisher-z`: units independent (no clusters given); `cluster-bootstrap`: the percentile bootstrap over clusters. */
  method: 'fisher-z' | 'cluster-bootstrap';
}

/** r from the totals n, Σx, Σy, Σx², Σy², Σxy. */
function pearsonOfTotals(t: Float64Array): number {
  const [n, sx, sy, sxx, syy, sxy] = t as unknown as [number, number, number, number, number, number];
  const vx = sxx - (sx * sx) / n;
  const vy = syy - (sy * sy) / n;
  return n < 2 || !(vx > 1e-12 * (sxx || 1)) || !(vy > 1e-12 * (syy || 1)) ? NaN : (sxy - (sx * sy) / n) / Math.sqrt(vx * vy);
}

/**
 * Pearson's r with an interval: with clusters (rubric items within an answer, answers within a
 * volume) the percentile bootstrap over clusters; without, Fisher's z (atanh r ± z/√(n − 3),
 * back-transformed; needs n > 3).
 */
export function pearsonWithInterval(x: readonly number[], y: readonly number[], options: AgreementOptions = {}): CorrelationEstimate {
  if (x.length !== y.length) throw new Error(`pearsonWithInterval: ${x.length} vs ${y.length} values`);
  const n = x.length;
  const r = pearson(x, y);
  if (options.clusters) {
    const totals = clusterTotals([x.map(() => 1), x, y, x.map((v) => v * v), y.map((v) => v * v), x.map((v, i) => v * y[i]!)], options.clusters);
    const [b] = bootstrapTotals(totals, [pearsonOfTotals], options);
    return { value: r, ciLow: b!.ciLow, ciHigh: b!.ciHigh, units: n, method: 'cluster-bootstrap' };
  }
  if (n <= 3 || Number.isNaN(r)) return { value: r, ciLow: NaN, ciHigh: NaN, units: n, method: 'fisher-z' };
  const z = Math.atanh(Math.min(Math.max(r, -1 + 1e-15), 1 - 1e-15));
  const half = normalQuantile(1 - (1 - (options.level ?? 0.95)) / 2) / Math.sqrt(n - 3);
  return { value: r, ciLow: Math.tanh(z - half), ciHigh: Math.tanh(z + half), units: n, method: 'fisher-z' };
}

/** A nominal label (0/1 verdicts, or any category); null or undefined: not labelled. */
export type Label = string | number | null | undefined;

const missing = (v: Label): v is null | undefined => v === null || v === undefined;

/** Category index of every label, in order of first appearance. */
function categoriesOf(rows: readonly (readonly Label[])[]): Map<string | number, number> {
  const index = new Map<string | number, number>();
  for (const row of rows) for (const v of row) if (!missing(v) && !index.has(v)) index.set(v, index.size);
  return index;
}

export interface KappaEstimate extends AgreementEstimate {
  /** Observed agreement p_o. */
  observed: number;
  /** Agreement expected by chance from the two raters' own marginals, p_e. */
  expected: number;
}

/**
 * Cohen's κ = (p_o − p_e)/(1 − p_e) for two raters on the units both labelled (Cohen 1960), with
 * the percentile bootstrap over units (or clusters) for its interval. NaN when p_e = 1 (both raters
 * gave one and the same label to everything).
 */
export function cohensKappa(a: readonly Label[], b: readonly Label[], options: AgreementOptions = {}): KappaEstimate {
  if (a.length !== b.length) throw new Error(`cohensKappa: ${a.length} vs ${b.length} labels`);
  if (options.clusters && options.clusters.length !== a.length) throw new Error(`cohensKappa: ${a.length} units but ${options.clusters.length} cluster keys`);
  const both = a.flatMap((v, i) => (missing(v) || missing(b[i]) ? [] : [i]));
  const categories = categoriesOf([both.map((i) => a[i]), both.map((i) => b[i])]);
  const k = categories.size;
  // One column per cell of the k × k table: unit i adds 1 to cell (a_i, b_i).
  const cells = Array.from({ length: k * k }, () => new Float64Array(both.length));
  both.forEach((i, u) => (cells[categories.get(a[i]!)! * k + categories.get(b[i]!)!]![u] = 1));
  const kappaParts = (t: Float64Array) => {
    let n = 0;
    for (let c = 0; c < k * k; c++) n += t[c]!;
    let agree = 0;
    let chance = 0;
    for (let c = 0; c < k; c++) {
      agree += t[c * k + c]!;
      let row = 0;
      let column = 0;
      for (let d = 0; d < k; d++) {
        row += t[c * k + d]!;
        column += t[d * k + c]!;
      }
      chance += (row / n) * (column / n);
    }
    return { observed: agree / n, expected: chance };
  };
  const kappa = (t: Float64Array) => {
    const { observed, expected } = kappaParts(t);
    return expected < 1 - 1e-12 ? (observed - expected) / (1 - expected) : NaN;
  };
  const totals = clusterTotals(cells, options.clusters ? both.map((i) => options.clusters![i]!) : undefined);
  const [b0] = bootstrapTotals(totals, [kappa], options);
  const parts = both.length ? kappaParts(grandTotals(totals)) : { observed: NaN, expected: NaN };
  return { value: both.length ? b0!.estimate : NaN, ciLow: b0!.ciLow, ciHigh: b0!.ciHigh, units: both.length, ...parts };
}

export interface AlphaEstimate extends AgreementEstimate {
  /** Values in pairable units (units with at least two labels): Krippendorff's n. */
  pairableValues: number;
}

/**
 * Krippendorff's α for nominal labels, any number of raters, missing labels allowed (Krippendorff
 * 2011, "Computing Krippendorff's Alpha-Reliability"): `units[u][r]` is rater r's label of unit u
 * (null or undefined: not labelled). α = 1 − D_o/D_e from the coincidence matrix: a unit with m_u ≥ 2
 * labels adds n_uc·n_uk/(m_u − 1) to each pair of categories (c, k), units with fewer are not
 * pairable and add nothing. With totals n_c (pairable labels of category c) and the summed
 * disagreement D = Σ_u (m_u² − Σ_c n_uc²)/(m_u − 1):  α = 1 − (n − 1)·D ÷ (n² − Σ_c n_c²).
 * The interval is the percentile bootstrap over units (or clusters of units) — not Krippendorff's
 * own bootstrap over pairable values, which assumes the values, not the units, are exchangeable.
 */
export function krippendorffAlpha(units: readonly (readonly Label[])[], options: AgreementOptions = {}): AlphaEstimate {
  if (options.clusters && options.clusters.length !== units.length) throw new Error(`krippendorffAlpha: ${units.length} units but ${options.clusters.length} cluster keys`);
  const categories = categoriesOf(units);
  const k = categories.size;
  const pairable = units.flatMap((row, u) => (row.filter((v) => !missing(v)).length >= 2 ? [u] : []));
  // Columns: the unit's count of each category, then its disagreement (m² − Σ n_c²)/(m − 1).
  const columns = Array.from({ length: k + 1 }, () => new Float64Array(pairable.length));
  pairable.forEach((u, j) => {
    const counts = new Float64Array(k);
    let m = 0;
    for (const v of units[u]!) {
      if (missing(v)) continue;
      counts[categories.get(v)!]! += 1;
      m++;
    }
    let squares = 0;
    for (let c = 0; c < k; c++) {
      columns[c]![j] = counts[c]!;
      squares += counts[c]! ** 2;
    }
    columns[k]![j] = (m * m - squares) / (m - 1);
  });
  const alpha = (t: Float64Array) => {
    let n = 0;
    let squares = 0;
    for (let c = 0; c < k; c++) {
      n += t[c]!;
      squares += t[c]! ** 2;
    }
    const expected = n * n - squares;
    return expected > 0 ? 1 - ((n - 1) * t[k]!) / expected : NaN;
  };
  const totals = clusterTotals(columns, options.clusters ? pairable.map((u) => options.clusters![u]!) : undefined);
  const [b] = bootstrapTotals(totals, [alpha], options);
  const observed = grandTotals(totals);
  let values = 0;
  for (let c = 0; c < k; c++) values += observed[c]!;
  return { value: pairable.length ? b!.estimate : NaN, ciLow: b!.ciLow, ciHigh: b!.ciHigh, units: pairable.length, pairableValues: values };
}
