/**
 * The results API: read run directories and analyse them (notebooks, scripts). The runner's
 * summaries and the HTML report are computed with the same functions.
 *
 *   const run = await loadRun('experiments/runs/demo-…');
 *   const rows = tidyRows(run);
 *   groupMeans(rows, ['model', 'k']);            // score vs k with 95% CIs
 *   groupMeans(rows, ['condition'], { value: 'recall' });
 *   pairedDifferences(rows, { baseline: 'closed-book' });
 *   correlations(rows, ['k'], 'recall', 'score'); // does finding the evidence go with answering well?
 *   groupMeans(rows.filter((r) => r.reranked), ['retriever', 'k'], { value: 'recallFirstStage' }); // recall@k before reranking
 *   diagnosticsRows(run).filter((r) => r.outcome === 'hurt');          // after `hisrag diagnose`: why, per answer
 *
 * Charts for notebooks: `lineFigureSpec({ xLabel: 'k', yLabel: 'score', ...chartSeries(groupMeans(...), { x: 'k', series: ['model'] }) })`
 * is a Vega-Lite spec (display it with Altair/vega-embed, or restyle it); `figureSvg(spec)` gives a
 * self-contained SVG (inline display), `saveFigure` writes it as .svg and .png.
 */
export { loadRun, loadRuns, type LoadedRun } from './loadRun.js';
export { tidyRows, tidyRow, type TidyRow } from './tidyRows.js';
export { diagnosticsRows, type DiagnosticsRow } from './diagnosticsRows.js';
export { groupMeans, pairedDifferences, type GroupMean, type PairedComparison } from './groupMeans.js';
export type { GroupKey } from './groupKeyValue.js';
export { groupKeyValue } from './groupKeyValue.js';
export { correlations, type GroupCorrelation } from './correlations.js';
export { judgeAgreementRows, verdictRecords, type JudgeDisagreement } from './judgeAgreement.js';
export { lineFigureSpec, type LineFigure, type VegaLiteSpec, type ChartSeries, type ChartPoint, type ChartReference } from '../figures/lineFigure.js';
export { figureSvg } from '../figures/render.js';
export { figureViolations, type FigureViolation } from '../figures/figureViolations.js';
export { runFigureSpecs, type RunFigure } from '../figures/runFigures.js';
export { chartSeries } from './chartSeries.js';
export { htmlTable } from './htmlTable.js';
export { saveFigure, saveFigures, type SavedFigure, type SaveFigureOptions } from './saveFigure.js';
