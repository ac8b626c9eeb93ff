/** The report's figures as HTML: one formatting of a number, an interval and a difference for every section (the terminal's numbers too). */
type Interval = { mean: number | null; ciLow: number | null; ciHigh: number | null };

export const num = (x: number | null | undefined, digits = 2) => (x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(digits));
export const signed = (x: number | null | undefined, digits = 2) => (x === null || x === undefined ? '–' : `${x >= 0 ? '+' : ''}${x.toFixed(digits)}`);

/** `mean [low, high]`, the interval (and `note`) greyed; – without a mean. */
export const meanCiHtml = (m: Interval | undefined, digits = 2, note = '') =>
  !m || m.mean === null ? '–' : `${num(m.mean, digits)} <span class="ci">[${num(m.ciLow, digits)}, ${num(m.ciHigh, digits)}]${note}</span>`;

/** A paired difference, green above 0 and red below, with its interval (and `note`) greyed. */
export const diffHtml = (d: { meanDiff: number | null; ciLow: number | null; ciHigh: number | null } | undefined, note = '') =>
  !d || d.meanDiff === null ? '–' : `<span class="${d.meanDiff > 0 ? 'pos' : d.meanDiff < 0 ? 'neg' : ''}">${signed(d.meanDiff)}</span> <span class="ci">[${num(d.ciLow)}, ${num(d.ciHigh)}]${note}</span>`;

/** A helped / hurt / unchanged group: its items and (its contribution to Δ). */
export const shareHtml = (g: { n: number; contribution: number }) => `${g.n} <span class="ci">(${signed(g.contribution)})</span>`;
