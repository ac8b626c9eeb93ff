import type { RunItemRecord } from '../runFiles/itemRecord.js';
import type { RunSummary } from '../runFiles/summary.js';
import { conditionMean, questionsOf, seedFor, type Observation } from '../statistics/run.js';
import type { Reducer } from '../statistics/samples.js';
import { decompose, pairedItems } from './decomposition.js';
import { groupBy } from './groupBy.js';
import { defaultDelta } from '../scoring/metrics.js';
import { CLAIM_METRICS, type CellDiagnostics, type ClaimMetric, type MetricMean, type RecordDiagnostics } from '../runFiles/diagnosis.js';

/** The diagnostics settings the summary needs (stored in the run directory's diagnostics.json). */
export interface DiagnosticsSummarySettings {
  baseline: string;
  /** null: the default for the cell's metric. */
  delta: number | null;
}

type Diagnosed = RunItemRecord & { diagnostics?: RecordDiagnostics };

/**
 * Mean ×100 of one metric over a cell's diagnosed answers with a bootstrap CI, and the answers that could
 * not get it. Repeated samples are averaged per question first (two-stage CI, `n` counting questions).
 */
export function metricMean(records: Diagnosed[], metric: ClaimMetric, resamples: number, seed: number): MetricMean | undefined {
  const observations: Observation[] = [];
  let failed = 0;
  let present = false;
  for (const r of records) {
    const metrics = r.diagnostics?.metrics;
    if (!metrics || !(metric in metrics)) continue;
    present = true;
    const value = metrics[metric];
    if (value === null || value === undefined) failed++;
    else observations.push({ itemKey: `${r.benchmark}:${r.itemId}`, condition: r.condition, sample: r.sample ?? 0, score: 100 * value });
  }
  if (!present) return undefined;
  const repeatedSamples = observations.some((o) => o.sample > 0) && questionsOf(observations).some((q) => q.scores.length > 1);
  // Claims are not clustered (RAGChecker averages per answer); `seed` is this metric's own already.
  const s = conditionMean(observations, { cluster: null, repeatedSamples, reducer: 'mean', resamples, seed, confidence: 0.95 }, '');
  return { mean: s.mean, ciLow: s.ciLow, ciHigh: s.ciHigh, n: s.n, failed };
}

/** Adds `diagnostics` to every cell: the help/hurt decomposition and the claim metrics with CIs, from the records alone. */
export function addDiagnosticsToSummary(summary: RunSummary, records: Diagnosed[], settings: DiagnosticsSummarySettings): RunSummary {
  const byCell = groupBy([...records].sort((a, b) => (a.key < b.key ? -1 : 1)), (r) => `${r.model}\u0000${r.condition}`);
  const { resamples, seed } = summary.bootstrap;
  const cells = summary.cells.map((cell) => {
    const list = byCell.get(`${cell.model}\u0000${cell.condition}`) ?? [];
    const baseline = byCell.get(`${cell.model}\u0000${settings.baseline}`);
    const decomposition =
      cell.condition === settings.baseline || !baseline
        ? null
        : decompose(pairedItems(list, baseline, (r) => r.diagnostics?.evidence, (cell.sampling?.reducer as Reducer | undefined) ?? 'mean'), { baseline: settings.baseline, delta: settings.delta ?? defaultDelta(cell.metric) });
    const diagnosed = list.filter((r) => r.diagnostics);
    const claims: CellDiagnostics['claims'] = {};
    for (const metric of CLAIM_METRICS) {
      const m = metricMean(diagnosed, metric, resamples, seedFor(seed, `${cell.model}|${cell.condition}|diagnostics|${metric}`));
      if (m) claims[metric] = m;
    }
    const costs = diagnosed.map((r) => r.diagnostics!.diagnosticsCost);
    const total = (pick: (c: (typeof costs)[number]) => number) => costs.reduce((n, c) => n + pick(c), 0);
    const diagnostics: CellDiagnostics = {
      decomposition,
      claims,
      diagnosed: diagnosed.length,
      checkerCalls: costs.length ? total((c) => c.checkerCalls) / costs.length : null,
      allPairsCalls: costs.length ? total((c) => c.allPairsCalls) / costs.length : null,
      diagnosticsCost: costs.length
        ? {
            extractorCalls: total((c) => c.extractorCalls),
            checkerCalls: total((c) => c.checkerCalls),
            allPairsCalls: total((c) => c.allPairsCalls),
            pairsChecked: total((c) => c.pairsChecked),
            pairsSkipped: total((c) => c.pairsSkipped),
            promptTokens: total((c) => c.promptTokens),
            completionTokens: total((c) => c.completionTokens),
          }
        : null,
    };
    return { ...cell, diagnostics };
  });
  return { ...summary, cells };
}
