import { outcomeOf } from '../diagnostics/decomposition.js';
import { defaultDelta } from '../scoring/metrics.js';
import { goldRankBucket } from '../diagnostics/evidence.js';
import { CLAIM_METRICS, type ClaimMetric, type RecordDiagnostics } from '../runFiles/diagnosis.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import type { LoadedRun } from './loadRun.js';

/**
 * Every diagnosed answer of one or more runs as tidy rows, for notebooks: filter the hurt answers
 * of `rag@100`, group by evidence status, correlate faithfulness with the score… Claim metrics are
 * ×100 like the summary (null where the condition has no passages, or a check failed).
 */
export function diagnosticsRows(runs: LoadedRun | LoadedRun[]): DiagnosticsRow[] {
  const rows: DiagnosticsRow[] = [];
  for (const run of Array.isArray(runs) ? runs : [runs]) {
    const settings = (run.summary.diagnostics ?? {}) as { baseline?: string; delta?: number | null };
    const baseline = settings.baseline ?? run.summary.baseline;
    const baseScores = new Map<string, number>();
    for (const r of run.records) {
      if (r.condition === baseline && r.score.status === 'scored' && r.score.score !== null) baseScores.set(`${r.model}|${r.benchmark}:${r.itemId}`, r.score.score);
    }
    const order = (r: RunItemRecord) => run.models.indexOf(r.model) * 10_000 + run.conditions.indexOf(r.condition);
    for (const r of [...run.records].sort((a, b) => order(a) - order(b) || (a.key < b.key ? -1 : 1))) {
      const d = r.diagnostics;
      if (!d) continue;
      rows.push(diagnosticsRow(run.id, r, d, r.condition === baseline ? undefined : baseScores.get(`${r.model}|${r.benchmark}:${r.itemId}`), settings.delta));
    }
  }
  return rows;
}

/** One diagnosed answer as a flat row: its score against the baseline's, where its gold went, its claim metrics. */
function diagnosticsRow(run: string, r: RunItemRecord, d: RecordDiagnostics, base: number | undefined, runDelta: number | null | undefined) {
  const score = r.score.status === 'scored' ? r.score.score : null;
  const diff = score !== null && base !== undefined ? score - base : null;
  const metrics = Object.fromEntries(CLAIM_METRICS.map((m) => [m, d.metrics[m] === undefined || d.metrics[m] === null ? null : 100 * d.metrics[m]!])) as Record<ClaimMetric, number | null>;
  return {
    run,
    benchmark: r.benchmark,
    itemId: r.itemId,
    category: r.category,
    model: r.model,
    condition: r.condition,
    strategy: r.strategy,
    retriever: r.retriever,
    k: r.k,
    score,
    /** The baseline condition's score on the same question (null when it has none, or this is the baseline). */
    baselineScore: base ?? null,
    diff,
    /** helped / hurt / unchanged at the run's δ; null without a baseline score. */
    outcome: diff === null ? null : outcomeOf(diff, runDelta ?? defaultDelta(r.score.metric)),
    evidence: d.evidence?.status ?? null,
    bestGoldRank: d.evidence?.bestRank ?? null,
    goldRankBucket: d.evidence ? goldRankBucket(d.evidence.bestRank) : null,
    responseClaims: d.responseClaims.length,
    goldClaims: d.goldClaims.length,
    goldClaimsFrom: d.goldClaimsFrom,
    failedChecks: d.failed.length,
    checkerCalls: d.diagnosticsCost.checkerCalls,
    allPairsCalls: d.diagnosticsCost.allPairsCalls,
    ...metrics,
  };
}

export type DiagnosticsRow = ReturnType<typeof diagnosticsRow>;
