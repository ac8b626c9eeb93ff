/**
 * The results API: read run directories and analyse them (notebooks, scripts). The runner's
 * summaries and the HTML report are computed with the same functions.
 *
 *   const run = await loadRun('experiments/runs/demo-…');
 *   const rows = tidyRows(run);
 *   groupMeans(rows, ['model', 'k']);            // score vs k with 95% CIs
 *   groupMeans(rows, ['condition'], { value: 'recall' });
 *   pairedDifferences(rows, { baseline: 'closed-book' });
 */
export { loadRun, loadRuns, type LoadedRun } from './loadRun.js';
export { tidyRows, tidyRow, type TidyRow } from './tidyRows.js';
export { groupMeans, pairedDifferences, type GroupKey, type GroupMean, type PairedComparison } from './groupMeans.js';
export { judgeAgreementRows, verdictRecords, type JudgeDisagreement } from './judgeAgreement.js';
