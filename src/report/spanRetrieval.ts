import type { CellSummary, MeanWithCi, RunSummary } from '../runFiles/summary.js';
import { SPAN_METRICS } from '../scoring/spanMetrics.js';

/** Column headings of the span metrics (text; the report escapes them). */
export const SPAN_METRIC_HEADINGS: Record<(typeof SPAN_METRICS)[number], string> = {
  charRecall: 'char recall',
  charPrecision: 'char precision',
  charIoU: 'char IoU',
  covered: 'gold covered',
  coverK: 'covering k',
  coverChars: 'covering chars',
};

/** Digits of the span metrics that are counts (the rest print three). */
export const SPAN_METRIC_DIGITS: Record<string, number> = { coverK: 1, coverChars: 0 };

/** `0.812 [0.701, 0.905]`: a span metric's mean with its 95% CI (counts with fewer digits). */
export function spanMetricText(estimate: MeanWithCi | undefined, metric: string): string {
  if (!estimate || estimate.mean === null) return '–';
  const digits = SPAN_METRIC_DIGITS[metric] ?? 3;
  const f = (x: number | null) => (x === null ? '–' : x.toFixed(digits));
  return `${f(estimate.mean)} [${f(estimate.ciLow)}, ${f(estimate.ciHigh)}]`;
}

/** The cells with span metrics, and the metrics any of them has, in table order. */
export function spanRetrievalCells(summary: RunSummary): { cells: CellSummary[]; metrics: (typeof SPAN_METRICS)[number][] } {
  const cells = summary.cells.filter((cell) => cell.spanRetrieval);
  const metrics = SPAN_METRICS.filter((metric) => cells.some((cell) => cell.spanRetrieval![metric]));
  return { cells, metrics };
}

/** What the span metrics are, said once under their table. */
export const SPAN_RETRIEVAL_NOTE =
  'span retrieval (chunking-independent): characters (code points) of the retrieved passages against the gold evidence spans — recall, precision and IoU as Chroma\'s chunking evaluation defines them (text retrieved twice counts twice); gold covered: share of questions whose gold the list covers whole; covering k / chars: the fewest top passages (and their context characters) that cover it, over the questions covered; means with 95% CIs';
