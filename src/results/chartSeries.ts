import type { GroupMean } from './groupMeans.js';
import type { ChartReference, ChartSeries } from '../figures/lineFigure.js';

/**
 * Turns group means into chart lines: groups with a numeric `x` (e.g. `k`) become points of the
 * series named by their `series` keys; groups whose `x` is null (closed-book has no depth)
 * become horizontal reference lines. Groups without a mean (all failed) are left out.
 *
 * The figure model (`src/figures/figureModel.ts`): a line never joins groups that differ in a key
 * other than `x`, so a key that varies among the points but is not among `series` is added to the
 * series (and its label) after them; each point carries its group's keys as factors, which
 * `figureViolations` checks.
 */
export function chartSeries(
  means: GroupMean[],
  options: { x: string; series: string[]; reference?: string[] },
): { series: ChartSeries[]; references: ChartReference[] } {
  const label = (m: GroupMean, keys: string[]) => keys.map((k) => String(m.keys[k] ?? '–')).join(' / ') || 'all';
  const placed = means.filter((m) => m.mean !== null && typeof m.keys[options.x] === 'number');
  const others = [...new Set(placed.flatMap((m) => Object.keys(m.keys)))].filter((k) => k !== options.x && !options.series.includes(k));
  const seriesKeys = [...options.series, ...others.filter((k) => new Set(placed.map((m) => String(m.keys[k] ?? '–'))).size > 1)];
  const series = new Map<string, ChartSeries>();
  for (const m of placed) {
    const name = label(m, seriesKeys);
    const s = series.get(name) ?? { label: name, points: [] };
    const factors = Object.fromEntries(Object.entries(m.keys).filter(([k]) => k !== options.x).map(([k, v]) => [k, String(v ?? '–')]));
    s.points.push({ x: m.keys[options.x] as number, y: m.mean!, lo: m.ciLow, hi: m.ciHigh, factors });
    series.set(name, s);
  }
  const references = means
    .filter((m) => m.mean !== null && typeof m.keys[options.x] !== 'number')
    .map((m) => ({ label: label(m, options.reference ?? options.series), y: m.mean!, lo: m.ciLow, hi: m.ciHigh }));
  return { series: [...series.values()], references };
}
