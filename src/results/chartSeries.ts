import type { GroupMean } from './groupMeans.js';
import type { ChartReference, ChartSeries } from '../figures/lineFigure.js';

/**
 * Turns group means into chart lines: groups with a numeric `x` (e.g. `k`) become points of the
 * series named by their `series` keys; groups whose `x` is null (closed-book has no depth)
 * become horizontal reference lines. Groups without a mean (all failed) are left out.
 */
export function chartSeries(
  means: GroupMean[],
  options: { x: string; series: string[]; reference?: string[] },
): { series: ChartSeries[]; references: ChartReference[] } {
  const label = (m: GroupMean, keys: string[]) => keys.map((k) => String(m.keys[k] ?? '–')).join(' / ') || 'all';
  const series = new Map<string, ChartSeries>();
  const references: ChartReference[] = [];
  for (const m of means) {
    if (m.mean === null) continue;
    const x = m.keys[options.x];
    if (typeof x === 'number') {
      const name = label(m, options.series);
      const s = series.get(name) ?? { label: name, points: [] };
      s.points.push({ x, y: m.mean, lo: m.ciLow, hi: m.ciHigh });
      series.set(name, s);
    } else {
      references.push({ label: label(m, options.reference ?? options.series), y: m.mean, lo: m.ciLow, hi: m.ciHigh });
    }
  }
  return { series: [...series.values()], references };
}
