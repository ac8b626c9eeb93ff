import { meanAxisTitle } from '../scoring/metrics.js';
import { NOISE_DIAGNOSTIC_METRICS, type NoiseStudy, type NoiseStudyPoint } from '../analysis/noiseStudy.js';
import { escapeHtml as esc } from './escape.js';
import { meanCiHtml, num } from './htmlCells.js';
import { lineFigureSpec, type ChartReference, type ChartSeries, type LineFigure } from '../figures/lineFigure.js';
import { figureSvg } from '../figures/render.js';

/** The report section's anchor (`<h2 id="noise">`). */
export const NOISE_STUDY_SECTION_ID = 'noise';

const METRIC_HEADINGS: Record<(typeof NOISE_DIAGNOSTIC_METRICS)[number], string> = {
  noiseSensitivityRelevant: 'noise sensitivity, relevant passages ↓',
  noiseSensitivityIrrelevant: 'noise sensitivity, irrelevant passages ↓',
  faithfulness: 'faithfulness ↑',
  claimRecall: 'claim recall ↑',
};

/**
 * The report section of a noise study (empty for `null`): per model, score against noise rate, score
 * against the gold's position (each with 95% CI bands and the closed-book reference line), and the
 * claim diagnostics of the noise conditions where the run was diagnosed. Labels are escaped.
 */
export function noiseStudyHtml(study: NoiseStudy | null): string {
  if (!study) return '';
  const out: string[] = [`<h2 id="${NOISE_STUDY_SECTION_ID}">Noise studies: distractors and the gold passage's position</h2>`];
  out.push(
    '<p class="meta">The <code>oracle+noise</code> controls put each question\'s gold evidence in the prompt and pad it to k with distractors ' +
      '(random passages, or hard negatives from a base retriever), the gold placed first, in the middle, last or at random. ' +
      '<b>Score vs noise rate</b> (as in RGB): the noise rate of an answer is the share of distractors among its prompt\'s passages, 1 − gold / passages, so with one gold passage k = 1, 3, 5, 10 give 0, 0.667, 0.8, 0.9; ' +
      'real retrievers sit at their mean 1 − precision@k: below the oracle curve at the same noise rate, they lose to missing evidence rather than to distraction. ' +
      '<b>Score vs gold position</b> (as in Lost in the Middle): at each k, where the gold sat among the distractors; a dip in the middle is position bias. ' +
      `Dashed: closed-book. Bands and bars: 95% CIs by the conditions table's estimator (${study.bootstrap.resamples} resamples, seed ${study.bootstrap.seed}). ` +
      'Items without gold evidence (unanswerable) are left out of the curves and the reference: the control gives them distractors only.</p>',
  );
  for (const m of study.models) {
    out.push(`<h3>${esc(m.model)}</h3>`);
    const notes: string[] = [];
    if (m.excludedNoGold) notes.push(`${m.excludedNoGold} answers to ${m.excludedNoGoldItems} item${m.excludedNoGoldItems === 1 ? '' : 's'} without gold evidence left out`);
    if (m.shortPrompts) notes.push(`${m.shortPrompts} prompts got fewer passages than k (a short document or the context budget): their noise rate is over the passages they got`);
    if (m.closedBook?.restricted) notes.push(`the reference is ${esc(m.closedBook.condition)} on the items with gold evidence (n = ${m.closedBook.n}), not the conditions table's mean`);
    if (notes.length) out.push(`<p class="meta">${notes.join('; ')}.</p>`);

    const references: ChartReference[] = m.closedBook?.mean != null ? [{ label: m.closedBook.label, y: m.closedBook.mean, lo: m.closedBook.ciLow, hi: m.closedBook.ciHigh }] : [];
    const toSeries = (label: string, points: NoiseStudyPoint[]): ChartSeries => ({
      label,
      points: points.filter((p) => p.mean !== null).map((p) => ({ x: p.x, y: p.mean!, lo: p.ciLow ?? p.mean, hi: p.ciHigh ?? p.mean })),
    });
    // Error bars, not bands: several series over few items overlap into one blur as bands.
    const chart = (title: string, className: string, series: ChartSeries[], figure: Omit<LineFigure, 'title' | 'yLabel' | 'series'>) => {
      const shown = series.filter((s) => s.points.length);
      if (!shown.length) return;
      const spec = lineFigureSpec({ title, yLabel: meanAxisTitle(study.metric), series: shown, references, errorBars: true, ...figure });
      out.push(figureSvg(spec, { className, ariaLabel: `${title} for ${m.model}` }));
    };
    chart('score vs noise rate', 'noise-rate-chart', [...m.byNoiseRate, ...m.realistic].map((s) => toSeries(s.label, s.points)), {
      xLabel: 'noise rate: share of distractors among the prompt\'s passages',
      xScale: 'linear',
      xDomain: [0, 1],
      xTicks: [0, 0.2, 0.4, 0.6, 0.8, 1],
    });
    const names = new Map(m.byGoldPosition.flatMap((s) => s.points.map((p) => [p.x, p.position] as const)));
    chart('score vs gold position', 'gold-position-chart', m.byGoldPosition.map((s) => toSeries(s.label, s.points)), {
      xLabel: 'position of the gold passage among the distractors',
      xScale: 'ordinal',
      xNames: Object.fromEntries(names),
    });
    if (m.diagnostics.length) {
      const metrics = NOISE_DIAGNOSTIC_METRICS.filter((metric) => m.diagnostics.some((row) => row.metrics[metric]));
      out.push(
        `<p class="meta">Claim diagnostics of the noise conditions (×100, 95% CIs; ↓ lower is better, ↑ higher is better): noise sensitivity is the share of the answer's claims that are wrong yet entailed by a relevant passage (one that holds a gold claim), or only by irrelevant ones; faithfulness, the share entailed by some passage; claim recall, the share of gold claims some passage holds.</p>`,
      );
      out.push(
        `<div class="scroll"><table class="noise-diagnostics"><tr><th>condition</th><th>noise</th><th>gold position</th><th>k</th><th>noise rate</th><th>diagnosed</th>${metrics.map((metric) => `<th>${esc(METRIC_HEADINGS[metric])}</th>`).join('')}</tr>`,
      );
      for (const row of m.diagnostics) {
        out.push(
          `<tr><td>${esc(row.condition)}</td><td>${esc(row.noise ?? '(real retrieval)')}</td><td>${esc(row.goldPosition ?? '–')}</td><td>${row.k ?? '–'}</td><td>${num(row.noiseRate, 3)}</td><td>${row.diagnosed}</td>` +
            `${metrics.map((metric) => `<td>${meanCiHtml(row.metrics[metric], 1)}</td>`).join('')}</tr>`,
        );
      }
      out.push('</table></div>');
    }
  }
  return out.join('\n');
}
