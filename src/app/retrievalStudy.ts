import type { ExperimentConfig } from '../config/experiment.js';
import type { BenchmarkItem } from '../benchmarks/types.js';
import { methodRetrievalMetrics } from '../experiment/itemDetails.js';
import { depthsOf, retrieversOf } from '../experiment/plan.js';
import type { Stages } from '../experiment/stages.js';
import { atomicWrite, atomicWriteJson } from '../io/atomicWrite.js';
import { DEPTH_AXIS_TITLES, factorPanels, NO_FACTOR, type FactorPoint } from '../figures/figureModel.js';
import { panelledFigureSpec, type VegaLiteSpec } from '../figures/lineFigure.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { clusteredBootstrap } from '../statistics/clusteredBootstrap.js';
import type { ScoreSummary } from '../statistics/bootstrap.js';
import { adjustFamily } from '../statistics/run.js';
import { signFlipTest } from '../statistics/pairedTest.js';
import { join } from 'node:path';
import { buildStages } from '../experiment/stages.js';
import { openRunDirectory, withHeldLock } from './openRun.js';
import { prepareArtefacts } from './prepare.js';
import type { RunOptions } from './runExperiment.js';

/** What a retrieval-only study reports per metric, as the answer summary does: the mean with its (cluster) bootstrap interval. */
export type StudyEstimate = ScoreSummary;

/** One retriever at one depth. */
export interface StudyCell {
  retriever: string;
  k: number;
  metrics: Record<string, StudyEstimate>;
}

/** Retriever − against on one metric at one depth, over the questions both scored: paired interval, sign-flip p, Holm and BH within the metric's family. */
export interface StudyComparison extends StudyEstimate {
  metric: string;
  k: number;
  retriever: string;
  against: string;
  p: number;
  pHolm: number;
  pBH: number;
}

/** `retrieval-summary.json` of a run without `models:`. */
export interface RetrievalStudySummary {
  kind: 'retrieval-only';
  questions: number;
  depths: number[];
  retrievers: string[];
  /** Cluster field of the intervals and tests: `docId` (the question's document) where every question has one, else none. */
  cluster: string | null;
  cells: StudyCell[];
  comparisons: StudyComparison[];
  /** Per retriever and metric, the mean at each depth, shallowest first. */
  depthCurves: { retriever: string; metric: string; points: { k: number; mean: number }[] }[];
}

/** The metrics the table prints, where the questions have them (span metrics need gold spans). */
const SHOWN = ['recall', 'ndcg', 'mrr', 'charRecall', 'charIoU'];

/** Per retriever, per depth, per question: its metrics (undefined without gold). */
async function scoreQuestions(stages: Stages, labels: string[], items: BenchmarkItem[], depths: number[]) {
  const deepest = Math.max(...depths);
  const scores = new Map<string, (Record<string, number> | undefined)[]>();
  for (const label of labels) {
    const retriever = stages.retriever(label);
    const queries = items.map((item) => stages.queryFor(item));
    const lists: RetrievedChunk[][] = retriever.retrieveBatch
      ? await retriever.retrieveBatch(queries, deepest)
      : await Promise.all(queries.map((query) => retriever.retrieve(query, deepest)));
    for (const k of depths) {
      scores.set(
        `${label}@${k}`,
        items.map((item, i) => {
          const list = lists[i]!.slice(0, k);
          return methodRetrievalMetrics(item, list, list.map((c) => c.id), k, undefined, stages.goldSpans(item, label));
        }),
      );
    }
  }
  return scores;
}

/**
 * A run with no `models:`: every retriever at every depth (`retrieval.k`) over the benchmark's
 * questions, no generator called. Writes `retrieval-summary.json` in the run directory and returns
 * it; `log` gets the table (metric means with intervals) and the paired comparisons.
 */
export async function runRetrievalStudy(config: ExperimentConfig, stages: Stages, runDir: string, log: (line: string) => void): Promise<RetrievalStudySummary> {
  const depths = depthsOf(config);
  const labels = retrieversOf(config).map((r) => r.label);
  const items = stages.items;
  log(`hisrag run ${config.name}: retrieval only (no models): ${items.length} questions × ${labels.length} retrievers × ${depths.length} depths, no generator called`);
  const scores = await scoreQuestions(stages, labels, items, depths);
  const clusters = items.every((item) => item.docId) ? items.map((item) => item.docId!) : undefined;
  const options = { resamples: config.scoring.bootstrapResamples, seed: config.seed };
  const estimate = (values: number[], groups: string[] | undefined): StudyEstimate => {
    const summary = clusteredBootstrap(values, groups, options);
    return { mean: summary.mean, ciLow: summary.ciLow, ciHigh: summary.ciHigh, n: values.length };
  };
  const metricNames = [...new Set([...scores.values()].flatMap((list) => list.flatMap((m) => Object.keys(m ?? {}))))].filter((name) => !name.includes('.'));
  const cells: StudyCell[] = [];
  for (const label of labels) {
    for (const k of depths) {
      const list = scores.get(`${label}@${k}`)!;
      const metrics: Record<string, StudyEstimate> = {};
      for (const metric of metricNames) {
        const at = list.flatMap((m, i) => (m?.[metric] !== undefined ? [i] : []));
        if (at.length > 0) metrics[metric] = estimate(at.map((i) => list[i]![metric]!), clusters && at.map((i) => clusters[i]!));
      }
      cells.push({ retriever: label, k, metrics });
    }
  }
  const comparisons = compareRetrievers(labels, depths, metricNames, scores, clusters, estimate, options.seed);
  const summary: RetrievalStudySummary = {
    kind: 'retrieval-only',
    questions: items.length,
    depths,
    retrievers: labels,
    cluster: clusters ? 'docId' : null,
    cells,
    comparisons,
    depthCurves: labels.flatMap((retriever) =>
      metricNames.map((metric) => ({
        retriever,
        metric,
        points: cells.filter((c) => c.retriever === retriever && c.metrics[metric]).map((c) => ({ k: c.k, mean: c.metrics[metric]!.mean })),
      })),
    ),
  };
  await atomicWriteJson(join(runDir, 'retrieval-summary.json'), summary);
  for (const { name, spec } of studyFigureSpecs(summary)) await atomicWrite(join(runDir, 'figures', `${name}.vl.json`), JSON.stringify(spec, null, 1) + '\n');
  for (const line of studyLines(summary)) log(line);
  return summary;
}

/** Every pair of retrievers at every depth on every metric; Holm and BH adjust within each metric's family (all its pairs and depths). */
function compareRetrievers(
  labels: string[],
  depths: number[],
  metricNames: string[],
  scores: Map<string, (Record<string, number> | undefined)[]>,
  clusters: string[] | undefined,
  estimate: (values: number[], groups: string[] | undefined) => StudyEstimate,
  seed: number,
): StudyComparison[] {
  const comparisons: StudyComparison[] = [];
  for (const metric of metricNames) {
    const family: Omit<StudyComparison, 'pHolm' | 'pBH'>[] = [];
    for (const k of depths) {
      for (const [a, retriever] of labels.entries()) {
        for (const against of labels.slice(a + 1)) {
          const mine = scores.get(`${retriever}@${k}`)!;
          const theirs = scores.get(`${against}@${k}`)!;
          const both = mine.flatMap((m, i) => (m?.[metric] !== undefined && theirs[i]?.[metric] !== undefined ? [i] : []));
          if (both.length === 0) continue;
          const diffs = both.map((i) => mine[i]![metric]! - theirs[i]![metric]!);
          const groups = clusters && both.map((i) => clusters[i]!);
          family.push({ metric, k, retriever, against, ...estimate(diffs, groups), p: signFlipTest(diffs, groups, { seed }).p });
        }
      }
    }
    const { holm, bh } = adjustFamily(family.map((c) => c.p));
    comparisons.push(...family.map((c, i) => ({ ...c, pHolm: holm[i]!, pBH: bh[i]! })));
  }
  return comparisons;
}

/** Names of the metrics on a figure's axis. */
const METRIC_TITLES: Record<string, string> = { recall: 'recall@k', ndcg: 'nDCG@k', mrr: 'MRR@k', charRecall: 'span character recall', charIoU: 'span character IoU' };

/**
 * A figure per shown metric (`figures/retrieval-<metric>.vl.json`, which `hisrag figures` renders):
 * the mean against k with its interval band, a line per retriever — the figure model's series, so no
 * line joins two retrievers.
 */
export function studyFigureSpecs(summary: RetrievalStudySummary): { name: string; spec: VegaLiteSpec }[] {
  return SHOWN.flatMap((metric) => {
    const points = summary.cells.flatMap((cell): FactorPoint[] => {
      const e = cell.metrics[metric];
      if (!e) return [];
      const factors = { model: NO_FACTOR, retriever: cell.retriever, chunking: NO_FACTOR, strategy: NO_FACTOR, method: NO_FACTOR, depthKind: 'k' };
      return [{ factors, name: cell.retriever, point: { x: cell.k, y: e.mean, lo: e.ciLow, hi: e.ciHigh, factors } }];
    });
    if (points.length === 0) return [];
    const panels = factorPanels(points, { xLabel: () => DEPTH_AXIS_TITLES.k });
    return [{ name: `retrieval-${metric}`, spec: panelledFigureSpec({ yLabel: `${METRIC_TITLES[metric] ?? metric} (mean, 95% CI)`, panels, xScale: 'ordinal', yDomain: [0, 1] }) }];
  });
}

const fixed = (x: number) => x.toFixed(3);

/** The terminal's view: a row per retriever × depth, then the paired comparisons. */
export function studyLines(summary: RetrievalStudySummary): string[] {
  const shown = SHOWN.filter((metric) => summary.cells.some((c) => c.metrics[metric]));
  const lines = [`retriever@k  ${shown.map((m) => `${m} [95% CI]`).join('  ')}`];
  for (const cell of summary.cells) {
    const shownValue = (metric: string) => {
      const e = cell.metrics[metric];
      return e ? `${fixed(e.mean)} [${fixed(e.ciLow)}, ${fixed(e.ciHigh)}]` : '–';
    };
    lines.push(`${cell.retriever}@${cell.k}  ${shown.map(shownValue).join('  ')}`);
  }
  const compared = summary.comparisons.filter((c) => shown.includes(c.metric));
  if (compared.length > 0) lines.push('paired comparisons (Δ [95% CI], sign-flip p, Holm, BH within each metric):');
  for (const c of compared) {
    lines.push(`${c.metric}@${c.k} ${c.retriever} − ${c.against}: ${c.mean >= 0 ? '+' : ''}${fixed(c.mean)} [${fixed(c.ciLow)}, ${fixed(c.ciHigh)}] p ${fixed(c.p)} (${fixed(c.pHolm)}, ${fixed(c.pBH)}) n=${c.n}`);
  }
  return lines;
}

/**
 * `hisrag run` on a config without `models:`: its run directory (config.json, locked as any run's),
 * its prepared corpora and indexes, then the study. Nothing is answered, so nothing resumes.
 */
export async function runRetrievalOnly(options: RunOptions & { config: ExperimentConfig }): Promise<{ runDir: string; interrupted: boolean; study: RetrievalStudySummary }> {
  const log = options.log ?? (() => {});
  return withHeldLock(async (holdLock) => {
    const { config, runDir } = await openRunDirectory(options, log, holdLock);
    await prepareArtefacts(config, { log, progress: options.progress ?? false, signal: options.signal, frozen: options.frozen ?? false });
    const stages = await buildStages(config);
    try {
      return { runDir, interrupted: false, study: await runRetrievalStudy(config, stages, runDir, log) };
    } finally {
      await stages.close();
    }
  });
}
