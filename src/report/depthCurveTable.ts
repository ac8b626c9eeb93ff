import type { RunSummary } from '../runFiles/summary.js';
import { seriesLabel } from '../figures/palette.js';
import { figureSvg } from '../figures/render.js';
import { probabilityBestFigure } from '../figures/runFigures.js';
import { escapeHtml } from './escape.js';

/**
 * The depth curves of one model as an HTML table: slope over ln k with its interval, per depth the
 * bootstrap probability that it is the best, and deepest − best; then those probabilities as a
 * figure (`probabilityBestFigure`). Empty when none.
 */
export function depthCurveTableHtml(summary: RunSummary, model: string): string {
  const curves = (summary.depthCurves ?? []).filter((c) => c.model === model);
  if (!curves.length) return '';
  const n = (x: number) => x.toFixed(2);
  const spec = probabilityBestFigure(summary, model);
  const rows = curves.map((c) => {
    const probabilities = c.depths.map((k, i) => `<span class="pbest">k=${k}: ${n(c.probabilityBest[i]!)}</span>`).join(' · ');
    const gap = c.deepestMinusBest;
    return `<tr><td>${escapeHtml(seriesLabel({ condition: c.conditions[0]!, k: c.depths[0]! }))}</td><td>${n(c.slope.estimate)} <span class="ci">[${n(c.slope.ciLow)}, ${n(c.slope.ciHigh)}]</span></td><td>${c.bestK}</td><td>${probabilities}</td><td>${n(gap.estimate)} <span class="ci">[${n(gap.ciLow)}, ${n(gap.ciHigh)}]</span>${c.deepestBelowBest ? ' <b>below</b>' : ''}</td><td>${c.n}</td></tr>`;
  });
  return (
    `<table class="depth-curves"><thead><tr><th>series</th><th>slope per ln k [95% CI]</th><th>best k</th><th>P(best) per k</th><th>deepest − best [95% CI]</th><th>n</th></tr></thead><tbody>${rows.join('')}</tbody></table>` +
    `<p class="meta">Paired over the questions scored at every depth${summary.cluster ? `, bootstrapped over clusters (${escapeHtml(summary.cluster)})` : ''}; the ringed point of each line is its best k.</p>` +
    (spec ? figureSvg(spec, { className: 'p-best-chart', ariaLabel: `P(best k) for ${model}` }) : '')
  );
}
