import { stringify } from 'csv-stringify/sync';
import type { RunSummary } from '../experiment/summary.js';

/** `summary.csv`: one row per model × condition (× group), tidy for spreadsheets and pandas. */
export function summaryCsv(summary: RunSummary): string {
  const header = ['model', 'condition', 'strategy', 'retriever', 'k', 'group', 'group_value', 'n', 'mean', 'ci_low', 'ci_high', 'diff_vs_baseline', 'diff_ci_low', 'diff_ci_high', 'share_positive', 'scored', 'generation_failed', 'judge_failed', 'empty', 'metric', 'recall', 'precision', 'ap'];
  const rows: unknown[][] = [];
  for (const cell of summary.cells) {
    const diff = summary.paired.find((p) => p.model === cell.model && p.condition === cell.condition);
    const r = cell.retrieval ?? {};
    rows.push([cell.model, cell.condition, cell.strategy, cell.retriever, cell.k, 'all', 'all', cell.score.n, cell.score.mean, cell.score.ciLow, cell.score.ciHigh, diff?.meanDiff, diff?.ciLow, diff?.ciHigh, diff?.sharePositive, cell.scored, cell.failed.generation, cell.failed.judge, cell.empty, cell.metric, r.recall, r.precision, r.ap]);
    for (const [group, values] of Object.entries(cell.byGroup)) {
      for (const [value, stats] of Object.entries(values)) {
        rows.push([cell.model, cell.condition, cell.strategy, cell.retriever, cell.k, group, value, stats.n, stats.mean, stats.ciLow, stats.ciHigh, '', '', '', '', '', '', '', '', '', cell.metric, '', '', '']);
      }
    }
  }
  // csv-stringify (node-csv) quotes fields with commas, quotes, CR or LF per RFC 4180; null/undefined → empty.
  return stringify([header, ...rows], { record_delimiter: 'unix', cast: { number: (value) => String(value) } });
}
