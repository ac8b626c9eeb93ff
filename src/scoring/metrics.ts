/**
 * The one map from a metric id (`score.metric`, the summary's `metric`, an `extra` key) to its display
 * name and scale, asked by every surface that shows a score and by the diagnostics' default δ.
 */
export interface MetricInfo {
  id: string;
  /** Short name for headers and axes: `RS`, `accuracy`, `ROUGE-L`. */
  name: string;
  /** What it is, for notes and tooltips. */
  description: string;
  /** The scale the scorer records it on. */
  scale: { min: number; max: number };
}

const zeroToHundred = { min: 0, max: 100 };
const zeroToOne = { min: 0, max: 1 };

const METRICS: Record<string, Omit<MetricInfo, 'id'>> = {
  rs: { name: 'RS', description: 'ProHist Rubric Score', scale: zeroToHundred },
  mcq: { name: 'MCQ', description: 'ProHist multiple-choice score', scale: zeroToHundred },
  'mcq+rs': { name: 'RS/MCQ', description: 'ProHist Rubric Score (rubric questions) and multiple-choice score (MCQ questions)', scale: zeroToHundred },
  accuracy: { name: 'accuracy', description: 'LongHisDoc generalised accuracy ×100', scale: zeroToHundred },
  rougeL: { name: 'ROUGE-L', description: 'character ROUGE-L F1 ×100 against the reference answer', scale: zeroToHundred },
  bleu4: { name: 'BLEU-4', description: 'character sentence BLEU-4 ×100 against the reference answer', scale: zeroToHundred },
  bertScoreP: { name: 'BERTScore P', description: 'BERTScore precision against the reference answer', scale: zeroToOne },
  bertScoreR: { name: 'BERTScore R', description: 'BERTScore recall against the reference answer', scale: zeroToOne },
  bertScoreF1: { name: 'BERTScore F1', description: 'BERTScore F1 against the reference answer', scale: zeroToOne },
};

/** A metric's name and scale; an id the map does not know keeps its id as name, on 0–100 (the scorer's default). */
export function metricInfo(id: string): MetricInfo {
  const known = METRICS[id];
  if (known) return { id, ...known };
  return { id, name: id || 'score', description: id || 'score', scale: zeroToHundred };
}

/** `0–100` */
export function scaleText(id: string): string {
  const { scale } = metricInfo(id);
  return `${scale.min}–${scale.max}`;
}

/** `RS (0–100)`: a header's or an axis's name of the metric. */
export function metricLabel(id: string): string {
  return `${metricInfo(id).name} (${scaleText(id)})`;
}

/** The diagnostics' default δ: a tenth of the metric's scale (10 points on 0–100, 0.1 on 0–1). */
export function defaultDelta(id: string): number {
  const { scale } = metricInfo(id);
  return (scale.max - scale.min) / 10;
}

/** `δ 10 (ROUGE-L, 0–100)`: a δ with the metric and scale it is on. */
export function deltaText(delta: number, id: string): string {
  return `δ ${delta} (${metricInfo(id).name}, ${scaleText(id)})`;
}

/** The metric of a set of cells (a run's): their ids' parts joined by `+` (`mcq+rs`), as the summary names a cell's. */
export function runMetric(ids: readonly (string | undefined)[]): string {
  return [...new Set(ids.flatMap((id) => (id ? id.split('+') : [])))].sort().join('+');
}

/** A summary's metric: its `metric` field, or (summaries written before it) its cells' metrics. */
export function summaryMetric(summary: { metric?: { id: string } | undefined; cells: readonly { metric?: string | undefined }[] }): MetricInfo {
  return metricInfo(summary.metric?.id ?? runMetric(summary.cells.map((c) => c.metric)));
}

/** `mean RS (0–100)`: the header of a column of means. */
export function meanHeader(id: string): string {
  return `mean ${metricLabel(id)}`;
}

/** `mean RS, 0–100 (95% CI)`: a chart's score axis. */
export function meanAxisTitle(id: string): string {
  return `mean ${metricInfo(id).name}, ${scaleText(id)} (95% CI)`;
}
