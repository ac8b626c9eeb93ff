import { contextUnitOf, type RunSummary } from '../runFiles/summary.js';
import { seriesLabel } from '../figures/palette.js';
import { figureSvg } from '../figures/render.js';
import { probabilityBestFigure } from '../figures/runFigures.js';
import { escapeHtml } from './escape.js';
import { num, signed } from './htmlCells.js';
import { pText } from './sections.js';

/** One model's depth curves as a table (slope, P(best) per depth, deepest − best), then P(best) as a figure. */
export function depthCurveTableHtml(summary: RunSummary, model: string): string {
  const curves = (summary.depthCurves ?? []).filter((c) => c.model === model);
  if (!curves.length) return '';
  const spec = probabilityBestFigure(summary, model);
  const rows = curves.map((c) => {
    const probabilities = c.depths.map((k, i) => `<span class="pbest">${c.unit === 'contextTokens' ? `${k}tok` : `k=${k}`}: ${num(c.probabilityBest[i]!)}</span>`).join(' · ');
    const gap = c.deepestMinusBest;
    return `<tr><td>${escapeHtml(seriesLabel({ condition: c.conditions[0]!, k: c.depths[0]! }))}${c.unit === 'contextTokens' ? ' (budgets)' : ''}</td><td>${num(c.slope.estimate)} <span class="ci">[${num(c.slope.ciLow)}, ${num(c.slope.ciHigh)}]</span></td><td>${c.unit === 'contextTokens' ? `${c.bestK} tokens` : c.bestK}</td><td>${probabilities}</td><td>${num(gap.estimate)} <span class="ci">[${num(gap.ciLow)}, ${num(gap.ciHigh)}]</span>${c.deepestBelowBest ? ' <b>below</b>' : ''}</td><td>${c.n}</td></tr>`;
  });
  return (
    `<table class="depth-curves"><thead><tr><th>series</th><th>slope per ln k [95% CI]</th><th>best k</th><th>P(best) per k</th><th>deepest − best [95% CI]</th><th>n</th></tr></thead><tbody>${rows.join('')}</tbody></table>` +
    `<p class="meta">Paired over the questions scored at every depth${summary.cluster ? `, bootstrapped over clusters (${escapeHtml(summary.cluster)})` : ''}; the ringed point of each line is its best k.</p>` +
    (spec ? figureSvg(spec, { className: 'p-best-chart', ariaLabel: `P(best k) for ${model}` }) : '')
  );
}

/** One model's depth curves against mean context tokens: chunking, tokens per depth, slope, best depth's tokens. */
export function depthCurveTokensTableHtml(summary: RunSummary, model: string): string {
  const curves = (summary.depthCurves ?? []).filter((c) => c.model === model && c.againstTokens);
  if (!curves.length) return '';
  const rows = curves.map((c) => {
    const t = c.againstTokens!;
    const best = c.depths.indexOf(c.bestK);
    const depths = c.depths.map((d, i) => `${c.unit === 'contextTokens' ? `${d}tok` : `k=${d}`}: ${Math.round(t.tokens[i]!)}`).join(', ');
    return `<tr><td>${escapeHtml(seriesLabel({ condition: c.conditions[0]!, k: c.depths[0]! }))}${c.unit === 'contextTokens' ? ' (budgets)' : ''}</td><td>${escapeHtml(c.corpus ?? '–')}</td><td>${depths}</td><td>${num(t.slope.estimate)} <span class="ci">[${num(t.slope.ciLow)}, ${num(t.slope.ciHigh)}]</span></td><td>≈ ${Math.round(t.bestTokens)} (P(best) ${num(t.probabilityBest[best]!)})</td><td>${c.n}</td></tr>`;
  });
  return `<table class="depth-curves-tokens"><thead><tr><th>series</th><th>chunking (corpus)</th><th>mean context ${escapeHtml(contextUnitOf(summary, model))} per depth</th><th>slope per ln tokens [95% CI]</th><th>best depth, tokens</th><th>n</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The depth families: per family a row per comparison, Δ with its interval, p with Holm and BH over the family. */
export function depthFamiliesHtml(summary: RunSummary): string {
  const families = (summary.families ?? []).filter((f) => f.kind !== undefined);
  if (!families.length) return '';
  const p = (x: number | null | undefined) => escapeHtml(pText(x));
  const out = ['<h2 id="depth-families">Depths and chunkings compared (paired; sign-flip p, Holm and BH per family)</h2>'];
  for (const family of families) {
    const rows = (summary.depthComparisons ?? [])
      .filter((d) => d.family === family.name)
      .map(
        (d) =>
          `<tr><td>${summary.models.length > 1 ? `${escapeHtml(d.model)} ` : ''}${escapeHtml(d.condition)} − ${escapeHtml(d.baseline)}</td><td>${signed(d.meanDiff)} [${num(d.ciLow)}, ${num(d.ciHigh)}]</td><td>${p(d.p)} (${p(d.pHolm)}, ${p(d.pBH)})</td></tr>`,
      );
    out.push(`<h3>${escapeHtml(family.name)}</h3><table><tr><th>comparison</th><th>Δ [95% CI]</th><th>p (Holm, BH)</th></tr>${rows.join('')}</table>`);
  }
  return out.join('');
}
