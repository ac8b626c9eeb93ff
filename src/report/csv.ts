import { metricInfo, scaleText } from '../scoring/metrics.js';
import { stringify } from 'csv-stringify/sync';
import type { RunSummary } from '../runFiles/summary.js';
import { CLAIM_METRICS } from '../runFiles/diagnosis.js';
import { SPAN_METRICS } from '../scoring/spanMetrics.js';
import { csvFields, csvHeads, type SectionTable } from './sections.js';

/** snake_case of a claim metric for the CSV header (`claim_recall`, `noise_sensitivity_relevant`). */
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const DIAGNOSTIC_HEADER = ['helped', 'hurt', 'unchanged', 'helped_contribution', 'hurt_contribution', 'unchanged_contribution', ...CLAIM_METRICS.map(snake), 'checker_calls', 'all_pairs_calls'];

/** The span metrics' CSV columns. */
const SPAN_COLUMNS: Record<(typeof SPAN_METRICS)[number], string> = { charRecall: 'char_recall', charPrecision: 'char_precision', charIoU: 'char_iou', covered: 'gold_covered', coverK: 'cover_k', coverChars: 'cover_chars' };

/** The diagnostics of a cell (empty when the run was not diagnosed): decomposition counts and contributions, claim metric means ×100, checker calls per answer. */
function diagnosticColumns(cell: RunSummary['cells'][number]): unknown[] {
  const d = cell.diagnostics;
  if (!d) return DIAGNOSTIC_HEADER.map(() => '');
  const c = d.decomposition;
  return [
    c?.helped.n, c?.hurt.n, c?.unchanged.n, c?.helped.contribution, c?.hurt.contribution, c?.unchanged.contribution,
    ...CLAIM_METRICS.map((m) => d.claims[m]?.mean),
    d.checkerCalls, d.allPairsCalls,
  ];
}

/** Mean cost per scored answer (empty for runs from before methods). */
function costColumns(cell: RunSummary['cells'][number]): unknown[] {
  const c = cell.cost;
  if (!c) return ['', '', '', '', '', '', ''];
  return [c.retrievalCalls, c.generationCalls, c.promptTokens, c.completionTokens, c.estimatedTokens, c.durationMs, c.price];
}

/** The method that produced the cell: its name, and its params as JSON (empty for summaries without them). */
const methodColumns = (cell: RunSummary['cells'][number]): unknown[] => (cell.methodSpec ? [cell.methodSpec.name, JSON.stringify(cell.methodSpec.params)] : ['', '']);

/** The metric's id, display name and scale (`rougeL`, `ROUGE-L`, `0–100`). */
const metricColumns = (id: string): unknown[] => [id, metricInfo(id).name, scaleText(id)];

/** `summary.csv`: one row per model × condition (× group), tidy for spreadsheets and pandas. */
export function summaryCsv(summary: RunSummary): string {
  const header = ['model', 'condition', 'strategy', 'retriever', 'k', 'group', 'group_value', 'n', 'mean', 'ci_low', 'ci_high', 'diff_vs_baseline', 'diff_ci_low', 'diff_ci_high', 'share_positive', 'scored', 'generation_failed', 'judge_failed', 'empty', 'metric', 'metric_name', 'metric_scale', 'recall', 'precision', 'ap', 'retrieval_calls', 'generation_calls', 'prompt_tokens', 'completion_tokens', 'tokens_estimated', 'ms_per_answer', 'price', ...DIAGNOSTIC_HEADER, 'clusters', 'design_effect', 'diff_design_effect', 'p', 'p_holm', 'p_bh', 'family', 'method', 'method_params'];
  // Repeated samples add their columns at the end (runs with one sample per question keep their CSV as it was).
  const sampled = summary.cells.some((c) => c.sampling);
  if (sampled) header.push('samples_per_question', 'reducer', 'variance_between', 'variance_within', 'sampling_share', 'effective_questions');
  const samplingColumns = (cell: RunSummary['cells'][number]): unknown[] => {
    if (!sampled) return [];
    const s = cell.sampling;
    return s ? [s.samplesPerQuestion, s.reducer, s.between, s.within, s.samplingShare, s.effectiveQuestions] : ['', '', '', '', '', ''];
  };
  // Span metrics (gold evidence as text) likewise: mean and 95% CI of each, at the end, only in runs that have them.
  const spanned = summary.cells.some((c) => c.spanRetrieval);
  if (spanned) header.push(...SPAN_METRICS.flatMap((metric) => [SPAN_COLUMNS[metric], `${SPAN_COLUMNS[metric]}_ci_low`, `${SPAN_COLUMNS[metric]}_ci_high`]));
  const spanColumns = (cell: RunSummary['cells'][number] | undefined): unknown[] =>
    spanned ? SPAN_METRICS.flatMap((metric): unknown[] => { const e = cell?.spanRetrieval?.[metric]; return e ? [e.mean, e.ciLow, e.ciHigh] : ['', '', '']; }) : [];
  // With labels: the Δ corrected with them (PPI++) beside the judge-only one, at the end, only in runs that have them.
  const labelled = Boolean(summary.judgeCheck?.differences.length);
  if (labelled) header.push('diff_ppi', 'diff_ppi_ci_low', 'diff_ppi_ci_high', 'labels_synthetic');
  const correctedColumns = (cell: RunSummary['cells'][number] | undefined): unknown[] => {
    if (!labelled) return [];
    const d = cell && summary.judgeCheck!.differences.find((x) => x.model === cell.model && x.condition === cell.condition && x.baseline === summary.baseline);
    return d ? [d.ppiPlusPlus.estimate, d.ppiPlusPlus.ciLow, d.ppiPlusPlus.ciHigh, summary.judgeCheck!.synthetic] : ['', '', '', ''];
  };
  const rows: unknown[][] = [];
  for (const cell of summary.cells) {
    const diff = summary.paired.find((p) => p.model === cell.model && p.condition === cell.condition);
    const r = cell.retrieval ?? {};
    rows.push([cell.model, cell.condition, cell.strategy, cell.retriever, cell.k, 'all', 'all', cell.score.n, cell.score.mean, cell.score.ciLow, cell.score.ciHigh, diff?.meanDiff, diff?.ciLow, diff?.ciHigh, diff?.sharePositive, cell.scored, cell.failed.generation, cell.failed.judge, cell.empty, ...metricColumns(cell.metric), r.recall, r.precision, r.ap, ...costColumns(cell), ...diagnosticColumns(cell), cell.score.clusters, cell.score.designEffect, diff?.designEffect, diff?.p, diff?.pHolm, diff?.pBH, diff?.family, ...methodColumns(cell), ...samplingColumns(cell), ...spanColumns(cell), ...correctedColumns(cell)]);
    for (const [group, values] of Object.entries(cell.byGroup)) {
      for (const [value, stats] of Object.entries(values)) {
        rows.push([cell.model, cell.condition, cell.strategy, cell.retriever, cell.k, group, value, stats.n, stats.mean, stats.ciLow, stats.ciHigh, '', '', '', '', '', '', '', '', ...metricColumns(cell.metric), '', '', '', '', '', '', '', '', '', '', ...DIAGNOSTIC_HEADER.map(() => ''), stats.clusters, stats.designEffect, '', '', '', '', '', ...methodColumns(cell), ...(sampled ? ['', '', '', '', '', ''] : []), ...spanColumns(undefined), ...correctedColumns(undefined)]);
      }
    }
  }
  // csv-stringify (node-csv) quotes fields with commas, quotes, CR or LF per RFC 4180; null/undefined → empty.
  return stringify([header, ...rows], { record_delimiter: 'unix', cast: { number: (value) => String(value) } });
}

/**
 * One of the run's section tables (`reportSections`) as CSV, `tables/<name>.csv`: the columns the
 * LaTeX table and the report print, each interval as estimate, low and high, the numbers unrounded.
 */
export function sectionCsv(table: SectionTable): string {
  const header = table.columns.flatMap(csvHeads);
  const rows = table.rows.map((row) => table.columns.flatMap((c, i) => csvFields(c, row[i] ?? null)));
  return stringify([header, ...rows], { record_delimiter: 'unix', cast: { number: (value) => String(value) } });
}
