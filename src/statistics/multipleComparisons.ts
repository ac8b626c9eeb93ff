/**
 * p-values adjusted over a family of comparisons, in the order given (NaN entries — comparisons
 * without data — are left out of the family and stay NaN).
 */

function ranked(pValues: readonly number[]): number[] {
  return pValues
    .map((p, i) => [p, i] as const)
    .filter(([p]) => !Number.isNaN(p))
    .sort((x, y) => x[0] - y[0] || x[1] - y[1])
    .map(([, i]) => i);
}

/**
 * Holm's step-down adjustment (Holm 1979): the i-th smallest of m p-values becomes
 * max over j ≤ i of min(1, (m − j + 1)·p_(j)). Rejecting where it is ≤ α keeps the family-wise
 * error (any false rejection) ≤ α under any dependence.
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  const order = ranked(pValues);
  const m = order.length;
  const out = pValues.map(() => NaN);
  let running = 0;
  order.forEach((index, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * pValues[index]!));
    out[index] = running;
  });
  return out;
}

/**
 * Benjamini–Hochberg step-up adjustment (Benjamini & Hochberg 1995): the i-th smallest of m
 * p-values becomes min over j ≥ i of min(1, m·p_(j)/j). Rejecting where it is ≤ q keeps the
 * expected share of false discoveries ≤ q (independent or positively dependent tests).
 */
export function benjaminiHochbergAdjust(pValues: readonly number[]): number[] {
  const order = ranked(pValues);
  const m = order.length;
  const out = pValues.map(() => NaN);
  let running = 1;
  for (let rank = m - 1; rank >= 0; rank--) {
    const index = order[rank]!;
    running = Math.min(running, (m * pValues[index]!) / (rank + 1));
    out[index] = running;
  }
  return out;
}
