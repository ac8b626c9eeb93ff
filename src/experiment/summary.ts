import { z } from 'zod';
import { pairedBootstrap } from '../scoring/bootstrap.js';
import type { MethodCost } from '../methods/trace.js';
import { CellDiagnosticsSchema } from '../diagnostics/types.js';
import { MeanWithCiSchema, meanWithCi, seedFor, type MeanWithCi } from './estimates.js';
import { compareModalities, ModalityComparisonSchema } from './modalityComparison.js';
import type { RunItemRecord } from './records.js';

export { MeanWithCiSchema, seedFor, type MeanWithCi } from './estimates.js';

export const CellSummarySchema = z.object({
  model: z.string(),
  condition: z.string(),
  strategy: z.string(),
  retriever: z.string().nullable(),
  k: z.number().nullable(),
  items: z.number().int(),
  scored: z.number().int(),
  failed: z.object({ generation: z.number().int(), judge: z.number().int() }),
  /**
   * Answers that were empty (after the endpoint's retries, or the model said nothing): scored
   * by the benchmark's rule (0) or, with `scoring.emptyAnswer: failed`, counted as failed.
   */
  empty: z.number().int().default(0),
  /** Answers whose reranker could not rerank (an unusable LLM ranking) and kept the first-stage order. */
  rerankFallbacks: z.number().int().default(0),
  /** The metric of the cell's mean (`rs`, `accuracy`, …; `mcq+rs` when a benchmark mixes both 0–100 scores). */
  metric: z.string().default(''),
  score: MeanWithCiSchema,
  /** Mean of the unrounded scores (RS before per-item rounding). */
  scoreRaw: z.number().nullable(),
  /** group key (task, type, answer_type ...) → group value → mean with CI. */
  byGroup: z.record(z.string(), z.record(z.string(), MeanWithCiSchema)),
  /** Mean retrieval metrics over items with gold evidence. */
  retrieval: z.record(z.string(), z.number()).nullable(),
  /** Mean secondary metrics (bleu4, rougeL, ...). */
  extra: z.record(z.string(), z.number()),
  truncatedItems: z.number().int(),
  /**
   * Mean cost per scored answer: retrieval and generation calls, tokens (the endpoint's usage, or
   * estimated: `estimatedTokens`), milliseconds, and the price when the model has one.
   */
  cost: z
    .object({
      n: z.number().int(),
      retrievalCalls: z.number(),
      generationCalls: z.number(),
      promptTokens: z.number(),
      completionTokens: z.number(),
      durationMs: z.number(),
      price: z.number().nullable(),
      estimatedTokens: z.boolean(),
      /** Means per answer of the 429s received and the milliseconds spent waiting for the endpoint's rate limit (absent in older runs). */
      rateLimited: z.number().optional(),
      rateLimitWaitMs: z.number().optional(),
      /** Mean per answer of the calls a batch API answered (batch mode; priced at the model's batchDiscount). */
      batchedCalls: z.number().optional(),
    })
    .nullable()
    .default(null),
  /** Per-item method figures over the cell's answered items: mean (a flag's mean is a share) and total. */
  method: z
    .record(z.string(), z.object({ mean: z.number(), total: z.number(), n: z.number().int(), /** A yes/no figure: its mean is a share. */ flag: z.boolean().default(false) }))
    .default({}),
  /** The diagnostics stage's figures (`hisrag diagnose`, or a config's `diagnostics:`): absent until a run is diagnosed. */
  diagnostics: CellDiagnosticsSchema.optional(),
});
export type CellSummary = z.infer<typeof CellSummarySchema>;

export const PairedDifferenceSchema = z.object({
  model: z.string(),
  condition: z.string(),
  baseline: z.string(),
  n: z.number().int(),
  meanDiff: z.number().nullable(),
  ciLow: z.number().nullable(),
  ciHigh: z.number().nullable(),
  /** Share of bootstrap resamples in which condition − baseline > 0. */
  sharePositive: z.number().nullable(),
});
export type PairedDifference = z.infer<typeof PairedDifferenceSchema>;

export const RunSummarySchema = z.object({
  experiment: z.string(),
  baseline: z.string(),
  bootstrap: z.object({ resamples: z.number().int(), seed: z.number().int(), confidence: z.number() }),
  models: z.array(z.string()),
  conditions: z.array(z.string()),
  totals: z.object({
    items: z.number().int(),
    scored: z.number().int(),
    generationFailed: z.number().int(),
    judgeFailed: z.number().int(),
    empty: z.number().int().default(0),
  }),
  cells: z.array(CellSummarySchema),
  paired: z.array(PairedDifferenceSchema),
  /** `scoring.versus`: the further conditions every condition is also compared with (OCR input beside closed-book …). */
  versusConditions: z.array(z.string()).optional(),
  /** Paired differences of every condition against each `versus` condition (`baseline` names it); absent without `versus`. */
  versus: z.array(PairedDifferenceSchema).optional(),
  /**
   * Conditions whose prompts showed page images against each text-only `versus` condition (image
   * input against OCR input), by evidence modality, type and answer type, with the help/hurt
   * decomposition; absent when the run has no such pair.
   */
  byModality: z.array(ModalityComparisonSchema).optional(),
  /** How the run was diagnosed (baseline, δ, extractor, checker, prefilter; stand-ins declared), when it was. */
  diagnostics: z.record(z.string(), z.unknown()).optional(),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

export interface SummaryOptions {
  experiment: string;
  models: string[];
  conditions: string[];
  baseline: string;
  /** Further conditions to take paired differences against (and, for image conditions, the modality breakdown); default none. */
  versus?: string[];
  resamples: number;
  seed: number;
}

function meanOf(values: number[]): number | null {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

const withCi = (values: number[], options: SummaryOptions, salt: string): MeanWithCi => meanWithCi(values, options, salt);

/** Mean cost per answer over the records that have one (runs from before methods have none). */
function meanCost(records: RunItemRecord[]): CellSummary['cost'] {
  const costs = records.flatMap((r) => (r.cost ? [r.cost] : []));
  if (costs.length === 0) return null;
  const mean = (pick: (c: MethodCost) => number) => costs.reduce((sum, c) => sum + pick(c), 0) / costs.length;
  return {
    n: costs.length,
    retrievalCalls: mean((c) => c.retrievalCalls),
    generationCalls: mean((c) => c.generationCalls),
    promptTokens: mean((c) => c.promptTokens),
    completionTokens: mean((c) => c.completionTokens),
    durationMs: mean((c) => c.durationMs),
    price: costs.every((c) => c.price !== undefined) ? mean((c) => c.price!) : null,
    estimatedTokens: costs.some((c) => c.estimatedTokens === true),
    ...(costs.some((c) => c.rateLimited || c.rateLimitWaitMs)
      ? { rateLimited: mean((c) => c.rateLimited ?? 0), rateLimitWaitMs: mean((c) => c.rateLimitWaitMs ?? 0) }
      : {}),
    ...(costs.some((c) => c.batchedCalls) ? { batchedCalls: mean((c) => c.batchedCalls ?? 0) } : {}),
  };
}

/** Mean and total of each method figure over the items that answered (failed items carry none). */
function methodFigures(records: RunItemRecord[]): CellSummary['method'] {
  const values: Record<string, number[]> = {};
  const flags = new Set<string>();
  const numbers = new Set<string>();
  for (const r of records) {
    for (const [name, value] of Object.entries(r.methodNotes ?? {})) {
      (values[name] ??= []).push(Number(value));
      (typeof value === 'boolean' ? flags : numbers).add(name);
    }
  }
  return Object.fromEntries(
    Object.keys(values)
      .sort()
      .map((name) => {
        const list = values[name]!;
        const total = list.reduce((a, b) => a + b, 0);
        return [name, { mean: total / list.length, total, n: list.length, flag: flags.has(name) && !numbers.has(name) }];
      }),
  );
}

const isScored = (r: RunItemRecord) => r.score.status === 'scored' && r.score.score !== null;
/** An answer that was empty, whether scored 0 by the benchmark's rule or recorded as failed. */
export const isEmptyAnswer = (r: RunItemRecord) => r.score.rule === 'empty-answer';

/**
 * Aggregates run records into the summary: mean score per model × condition with a bootstrap CI,
 * breakdowns by group, retrieval metrics, and the paired difference of every condition against
 * the baseline on the questions both scored. Records are sorted by key first, so the summary
 * depends only on the set of records, never on the order in which they finished.
 */
export function summarizeRun(records: RunItemRecord[], options: SummaryOptions): RunSummary {
  const sorted = [...records].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const byCell = new Map<string, RunItemRecord[]>();
  for (const record of sorted) {
    const key = `${record.model}\u0000${record.condition}`;
    const list = byCell.get(key) ?? [];
    list.push(record);
    byCell.set(key, list);
  }

  const cells: CellSummary[] = [];
  const paired: PairedDifference[] = [];
  const versus: PairedDifference[] = [];
  for (const model of options.models) {
    for (const condition of options.conditions) {
      const list = byCell.get(`${model}\u0000${condition}`);
      if (!list?.length) continue;
      const first = list[0]!;
      const scored = list.filter(isScored);
      const groups: Record<string, Record<string, number[]>> = {};
      for (const r of scored) {
        for (const [groupKey, value] of Object.entries(r.groups)) {
          ((groups[groupKey] ??= {})[value] ??= []).push(r.score.score!);
        }
      }
      const byGroup: CellSummary['byGroup'] = {};
      for (const groupKey of Object.keys(groups).sort()) {
        byGroup[groupKey] = {};
        for (const value of Object.keys(groups[groupKey]!).sort()) {
          byGroup[groupKey]![value] = withCi(groups[groupKey]![value]!, options, `${model}|${condition}|${groupKey}|${value}`);
        }
      }
      const metricSums: Record<string, number[]> = {};
      for (const r of list) {
        for (const [name, value] of Object.entries(r.retrievalMetrics ?? {})) (metricSums[name] ??= []).push(value);
      }
      const extraSums: Record<string, number[]> = {};
      for (const r of scored) {
        for (const [name, value] of Object.entries(r.score.extra ?? {})) (extraSums[name] ??= []).push(value);
      }
      const meanRecord = (sums: Record<string, number[]>) =>
        Object.fromEntries(Object.keys(sums).sort().map((name) => [name, meanOf(sums[name]!)!]));
      cells.push({
        model,
        condition,
        strategy: first.strategy,
        retriever: first.retriever,
        k: first.k,
        items: list.length,
        scored: scored.length,
        failed: {
          generation: list.filter((r) => r.score.status === 'generation_failed').length,
          judge: list.filter((r) => r.score.status === 'judge_failed').length,
        },
        empty: list.filter(isEmptyAnswer).length,
        rerankFallbacks: list.filter((r) => r.retrieved.some((chunk) => chunk.rerankFallback !== undefined)).length,
        metric: [...new Set(list.map((r) => r.score.metric))].sort().join('+'),
        score: withCi(scored.map((r) => r.score.score!), options, `${model}|${condition}`),
        scoreRaw: meanOf(scored.map((r) => r.score.scoreRaw ?? r.score.score!)),
        byGroup,
        retrieval: Object.keys(metricSums).length ? meanRecord(metricSums) : null,
        extra: meanRecord(extraSums),
        truncatedItems: list.filter((r) => r.truncated > 0).length,
        cost: meanCost(scored),
        method: methodFigures(list),
      });
    }

    paired.push(...pairedAgainst(byCell, model, options.baseline, options));
    for (const reference of options.versus ?? []) versus.push(...pairedAgainst(byCell, model, reference, options));
  }

  return {
    experiment: options.experiment,
    baseline: options.baseline,
    bootstrap: { resamples: options.resamples, seed: options.seed, confidence: 0.95 },
    models: options.models,
    conditions: options.conditions,
    totals: {
      items: sorted.length,
      scored: sorted.filter(isScored).length,
      generationFailed: sorted.filter((r) => r.score.status === 'generation_failed').length,
      judgeFailed: sorted.filter((r) => r.score.status === 'judge_failed').length,
      empty: sorted.filter(isEmptyAnswer).length,
    },
    cells,
    paired,
    ...(options.versus?.length ? { versusConditions: options.versus, versus } : {}),
    ...withModalities(compareModalities(sorted, { ...options, versus: options.versus ?? [] })),
  };
}

const withModalities = (list: ReturnType<typeof compareModalities>) => (list.length ? { byModality: list } : {});

/** Every condition of one model against a reference condition, on the questions both scored (paired bootstrap). */
function pairedAgainst(byCell: Map<string, RunItemRecord[]>, model: string, reference: string, options: SummaryOptions): PairedDifference[] {
  const baseline = byCell.get(`${model}\u0000${reference}`);
  if (!baseline) return [];
  const out: PairedDifference[] = [];
  const baselineScores = new Map(baseline.filter(isScored).map((r) => [`${r.benchmark}:${r.itemId}`, r.score.score!]));
  for (const condition of options.conditions) {
    if (condition === reference) continue;
    const list = byCell.get(`${model}\u0000${condition}`);
    if (!list) continue;
    const a: number[] = [];
    const b: number[] = [];
    for (const r of list.filter(isScored)) {
      const base = baselineScores.get(`${r.benchmark}:${r.itemId}`);
      if (base === undefined) continue;
      a.push(r.score.score!);
      b.push(base);
    }
    if (a.length === 0) {
      out.push({ model, condition, baseline: reference, n: 0, meanDiff: null, ciLow: null, ciHigh: null, sharePositive: null });
      continue;
    }
    // The baseline's salt is the one runs have always used, so their intervals do not move.
    const salt = reference === options.baseline ? `${model}|${condition}|paired` : `${model}|${condition}|paired|${reference}`;
    const d = pairedBootstrap(a, b, { resamples: options.resamples, seed: seedFor(options.seed, salt) });
    out.push({ model, condition, baseline: reference, n: a.length, meanDiff: d.meanDiff, ciLow: d.ciLow, ciHigh: d.ciHigh, sharePositive: d.sharePositive });
  }
  return out;
}
