import { z } from 'zod';
import type { BenchmarkItem } from '../benchmarks/types.js';
import type { ExperimentConfig } from '../config/experiment.js';
import { InputError } from '../errors.js';
import { clusterFieldOf, clusterKeyOf } from '../experiment/clusterKey.js';
import { itemGroups } from '../experiment/itemDetails.js';
import type { Condition } from '../experiment/plan.js';
import { DEPTH_FAMILY_REFERENCE, depthFamilyComparisons, depthFamilyName, type DepthFamilyKind, type DepthPoint, type FamilyComparison } from '../analysis/depthFamilies.js';
import { plannedContexts, type PlannedContext } from './estimateRun.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import type { Stages } from '../experiment/stages.js';
import type { EarlierRun } from './earlierRun.js';
import { isScored, runStatistics } from '../analysis/observations.js';
import { groupBy } from '../diagnostics/groupBy.js';
import { labelsNeeded, momentsFromAgreement } from '../statistics/ppi.js';
import { questionsOf } from '../statistics/run.js';
import { reduceSamples } from '../statistics/samples.js';
import {
  minimumDetectableDifference,
  pairedVarianceOf,
  projectDesignEffect,
  designEffectOf,
  questionsNeeded,
  type PairedVariance,
} from '../statistics/power.js';

// Power before the run (`hisrag power`, `hisrag run --dry-run`): per comparison the summary will test,
// the minimum detectable difference and the questions a difference needs, with σ_d and the design
// effect from an earlier run (`--estimate-from`) or a stated assumption (`--sd`, `--icc`, `--cluster-size`).

/** The stated assumption: σ_d, and an intra-cluster correlation with the questions per cluster it applies to. */
export const PowerAssumptionSchema = z.object({
  sd: z.number({ message: '--sd: a number (points)' }).positive('--sd: the standard deviation of a paired difference must be > 0'),
  icc: z.number({ message: '--icc: a number' }).min(0, '--icc: must be in [0, 1]').max(1, '--icc: must be in [0, 1]').default(0),
  /** Questions per cluster; default: the configured questions ÷ clusters. */
  clusterSize: z.number({ message: '--cluster-size: a number' }).min(1, '--cluster-size: must be ≥ 1').optional(),
});
export type PowerAssumption = z.infer<typeof PowerAssumptionSchema>;

/** What the dry run assumes without `--estimate-from`: a 0–100 score whose two conditions disagree on a quarter of the questions (σ_d = 50), unclustered. */
export const DEFAULT_ASSUMPTION: PowerAssumption = { sd: 50, icc: 0 };

export const PowerOptionsSchema = z.object({
  alpha: z.number({ message: '--alpha: a number' }).gt(0, '--alpha: must be in (0, 1)').lt(1, '--alpha: must be in (0, 1)').default(0.05),
  power: z.number({ message: '--power: a number' }).gt(0, '--power: must be in (0, 1)').lt(1, '--power: must be in (0, 1)').default(0.8),
  /** The difference (points) whose needed questions are shown. */
  difference: z.number({ message: '--difference: a number (points)' }).positive('--difference: must be > 0 (points)').optional(),
});
export type PowerOptions = z.input<typeof PowerOptionsSchema>;

/**
 * The grid the power figures are for: the configured one, with repeated samples per question by model label
 * (absent: 1) and the depth steps and chunkings at equal context the summary will test as families.
 */
export type PowerDesign = ReturnType<typeof designOf> & { samples?: Record<string, number>; depthComparisons?: FamilyComparison[] };

/**
 * Per comparison (`model\0condition\0reference`), the earlier run's paired variance (samples reduced) and,
 * with repeated samples, the within-question variance v at n₀ samples: σ²_d(n) = σ²_d(n₀) − v/n₀ + v/n.
 */
export type MeasuredVariances = Map<string, PairedVariance & { n: number; clusters: number; sampling?: { variance: number; samples: number } }>;

export type VarianceSource = { kind: 'earlier-run'; from: string; variances: MeasuredVariances } | ({ kind: 'assumed' } & PowerAssumption);

export interface PowerComparison {
  model: string;
  condition: string;
  reference: string;
  n: number;
  clusters: number;
  /** σ_d and the design effect at the configured cluster size; null when the earlier run has no such pair. */
  sd: number | null;
  designEffect: number | null;
  /** Minimum detectable difference at α, and at α ÷ family size (Bonferroni: a bound on Holm's, whose smallest p faces exactly that). */
  mdd: number | null;
  mddBonferroni: number | null;
  /** Questions needed for `difference` at α (and at the Bonferroni level), at the same questions per cluster. */
  questionsNeeded: number | null;
  questionsNeededBonferroni: number | null;
  /** The earlier run's paired questions the variance was measured on. */
  measuredOn?: number;
  /** The depth family the comparison is in (its name); absent for a comparison against the baseline or a `versus` condition. */
  family?: string;
  /** `--label-width`: human labels (questions labelled in both conditions) whose PPI++ interval of the Δ is at most that wide; null: not even labelling all. */
  labelsNeeded?: number | null;
}

/** `--label-width`: the interval width the labels are planned for and the judge–human correlation assumed. */
export type PowerPlan = ReturnType<typeof planPower> & { labelPlan?: { width: number; judgeR: number } };

/** Per comparison, the labels a PPI++ 95% interval of Δ at most `width` wide needs (judge and human sharing σ_d, correlated at `judgeR`). */
export function withLabelPlan(power: PowerPlan, width: number, judgeR: number): PowerPlan {
  const comparisons = power.comparisons.map((c) => ({
    ...c,
    labelsNeeded: c.sd === null ? null : labelsNeeded(momentsFromAgreement(c.sd, judgeR), c.n, width, { designEffect: c.designEffect ?? 1 }),
  }));
  return { ...power, comparisons, labelPlan: { width, judgeR } };
}

const comparisonKey = (model: string, condition: string, reference: string) => `${model}\u0000${condition}\u0000${reference}`;

/** The record fields clusterKey.ts reads (kind, itemId, benchmark, evidence, groups), so the plan clusters as the summary will. */
function clusterView(item: BenchmarkItem): RunItemRecord {
  return { kind: item.kind, itemId: item.id, benchmark: item.benchmark, groups: itemGroups(item), ...(item.docId ? { evidence: { docId: item.docId, pages: [] } } : {}) } as unknown as RunItemRecord;
}

/** The configured grid: its questions and their clusters, the models, conditions, baseline and `versus`. */
export function designOf(config: ExperimentConfig, items: BenchmarkItem[], models: string[], conditions: string[]) {
  const views = items.map(clusterView);
  // The field questions are clustered over (`scoring.cluster`; LongHisDoc: `doc_id`); null: none.
  const clusterField = clusterFieldOf(views, config.scoring.cluster);
  const clusters = clusterField ? new Set(views.map(clusterKeyOf(clusterField))).size : items.length;
  return { experiment: config.name, models, conditions, baseline: config.scoring.baseline, versus: config.scoring.versus, questions: items.length, clusters, clusterField };
}

/** Each comparison's σ_d and design effect in an earlier run, from its items.jsonl, clustered over `clusterSetting` as its summary would be. */
export function measuredVariances(run: EarlierRun, clusterSetting: string | undefined, extraPairs: readonly { model: string; condition: string; reference: string }[] = []): MeasuredVariances {
  const reducer = run.config.scoring.reducer ?? 'mean';
  const stats = runStatistics(run.records.filter(isScored), { cluster: clusterSetting ?? run.config.scoring.cluster, reducer, resamples: run.config.scoring.bootstrapResamples, seed: run.config.seed });
  const cluster = stats.settings.cluster;
  const records = groupBy(run.records, (r) => `${r.model}\u0000${r.condition}`);
  const questions = (model: string, condition: string) => {
    const list = records.get(`${model}\u0000${condition}`);
    return list ? new Map(questionsOf(stats.observations(list)).map((q) => [q.itemKey, q])) : undefined;
  };
  const references = [run.config.scoring.baseline, ...run.config.scoring.versus];
  const pairs = run.models.flatMap((model) => references.flatMap((reference) => run.conditions.filter((c) => c !== reference).map((condition) => ({ model, condition, reference }))));
  // The design's depth steps and chunkings at equal context, where the earlier run has both sides.
  for (const pair of extraPairs) if (run.models.includes(pair.model)) pairs.push(pair);
  const out: MeasuredVariances = new Map();
  for (const { model, condition, reference } of pairs) {
    const base = questions(model, reference);
    const list = base ? questions(model, condition) : undefined;
    if (!base || !list) continue;
    const diffs: number[] = [];
    const keys: string[] = [];
    let sampling = 0;
    let sampledQuestions = 0;
    let samplesSeen = 0;
    for (const [key, r] of list) {
      const b = base.get(key);
      if (!b) continue;
      diffs.push(reduceSamples(r.scores, reducer) - reduceSamples(b.scores, reducer));
      if (cluster) keys.push(r.cluster!);
      if (r.scores.length > 1 && b.scores.length > 1) {
        sampling += sampleVariance(r.scores) + sampleVariance(b.scores);
        sampledQuestions++;
        samplesSeen += (r.scores.length + b.scores.length) / 2;
      }
    }
    const variance = pairedVarianceOf(diffs, cluster ? keys : undefined);
    if (variance) {
      out.set(comparisonKey(model, condition, reference), {
        ...variance,
        ...(sampledQuestions && reducer === 'mean' ? { sampling: { variance: sampling / sampledQuestions, samples: samplesSeen / sampledQuestions } } : {}),
      });
    }
  }
  if (out.size === 0) throw new InputError(`--estimate-from ${run.from}: the run has no paired differences that vary (no condition scored beside ${references.join(' / ')} on the same questions)`);
  return out;
}

function sampleVariance(values: readonly number[]): number {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return values.reduce((a, x) => a + (x - mean) ** 2, 0) / (values.length - 1);
}

/** σ_d at the design's samples per question: v/n₀ replaced by v/n; a between-question part below 0 (noise) taken as 0. */
function sdAtSamples(measured: NonNullable<ReturnType<MeasuredVariances['get']>>, samples: number): number {
  if (!measured.sampling) return measured.sd;
  const { variance, samples: measuredAt } = measured.sampling;
  return Math.sqrt(Math.max(0, measured.sd ** 2 - variance / measuredAt) + variance / samples);
}

/** The power figures of every comparison of the design. */
export function planPower(design: PowerDesign, source: VarianceSource, options: PowerOptions = {}) {
  const { alpha, power, difference } = parseOrThrow(PowerOptionsSchema, options);
  const references = [design.baseline, ...design.versus.filter((v) => v !== design.baseline)].filter((r) => design.conditions.includes(r));
  const n = design.questions;
  const clusterSize = source.kind === 'assumed' && source.clusterSize !== undefined ? source.clusterSize : n / Math.max(1, design.clusters);
  const clusters = source.kind === 'assumed' && source.clusterSize !== undefined ? Math.max(1, Math.round(n / source.clusterSize)) : design.clusters;
  const comparisons: PowerComparison[] = [];
  // Per reference condition, and per depth family, the comparisons adjusted together (as the summary's families).
  const families: { reference: string; size: number; name?: string; kind?: DepthFamilyKind }[] = [];
  const figures = (model: string, condition: string, reference: string, familySize: number): Omit<PowerComparison, 'model' | 'condition' | 'reference'> => {
    const measured = source.kind === 'earlier-run' ? source.variances.get(comparisonKey(model, condition, reference)) : undefined;
    const sd = source.kind === 'assumed' ? source.sd : measured ? sdAtSamples(measured, design.samples?.[model] ?? 1) : null;
    const deff = source.kind === 'assumed' ? designEffectOf(source.icc, clusterSize) : measured ? projectDesignEffect(measured, clusterSize) : null;
    const known = sd !== null && deff !== null;
    const bonferroni = { alpha: alpha / Math.max(1, familySize), power };
    return {
      n,
      clusters,
      sd,
      designEffect: deff,
      mdd: known ? minimumDetectableDifference(sd, n, deff, { alpha, power }) : null,
      mddBonferroni: known ? minimumDetectableDifference(sd, n, deff, bonferroni) : null,
      questionsNeeded: known && difference !== undefined ? questionsNeeded(sd, difference, deff, { alpha, power }) : null,
      questionsNeededBonferroni: known && difference !== undefined ? questionsNeeded(sd, difference, deff, bonferroni) : null,
      ...(measured ? { measuredOn: measured.n } : {}),
    };
  };
  for (const reference of references) {
    const members = design.models.flatMap((model) => design.conditions.filter((c) => c !== reference).map((condition) => ({ model, condition })));
    families.push({ reference, size: members.length });
    for (const { model, condition } of members) comparisons.push({ model, condition, reference, ...figures(model, condition, reference, members.length) });
  }
  for (const kind of ['depth', 'chunking'] as const) {
    const members = (design.depthComparisons ?? []).filter((c) => c.kind === kind);
    if (!members.length) continue;
    const name = depthFamilyName(kind, members.length);
    families.push({ reference: DEPTH_FAMILY_REFERENCE[kind], size: members.length, name, kind });
    for (const { model, condition, reference } of members) comparisons.push({ model, condition, reference, ...figures(model, condition, reference, members.length), family: name });
  }
  return {
    experiment: design.experiment,
    alpha,
    power,
    ...(difference !== undefined ? { difference } : {}),
    source: source.kind === 'earlier-run' ? { kind: 'earlier-run' as const, from: source.from } : source,
    questions: n,
    clusters,
    clusterField: design.clusterField,
    families,
    comparisons,
  };
}

export interface PowerRequest extends PowerOptions {
  /** An earlier run directory whose paired variances are used. */
  estimateFrom?: string;
  /** Otherwise: the stated assumption (default `DEFAULT_ASSUMPTION`). */
  assume?: z.input<typeof PowerAssumptionSchema>;
}

/**
 * The power plan of a grid on stages already built; σ_d from `earlier` (read by the caller) or the assumption.
 * With two retrievers or more, the chunkings at equal context need each condition's planned context.
 */
export async function powerOfStages(config: ExperimentConfig, stages: Stages, conditions: Condition[], request: Omit<PowerRequest, 'estimateFrom'>, earlier?: EarlierRun): Promise<PowerPlan> {
  const models = stages.models.map((m) => m.label);
  const contexts = new Set(conditions.flatMap((c) => c.retrieverLabel ?? [])).size > 1 ? await plannedContexts(stages, conditions) : new Map<string, PlannedContext>();
  const points = conditions.flatMap((c) => {
    const at = c.k !== null ? { unit: 'k' as const, depth: c.k } : c.contextTokens !== undefined ? { unit: 'contextTokens' as const, depth: c.contextTokens } : null;
    if (!at || !c.usesRetrieval) return [];
    const context = contexts.get(c.name);
    return models.map((model): DepthPoint => ({ model, condition: c.name, strategy: c.strategyLabel, retriever: c.retrieverLabel, ...at, ...(context ?? {}) }));
  });
  const depthComparisons = depthFamilyComparisons(points);
  const design = { ...designOf(config, stages.items, models, conditions.map((c) => c.name)), samples: Object.fromEntries(stages.models.map((m) => [m.label, m.samples])), depthComparisons };
  const source: VarianceSource = earlier
    ? { kind: 'earlier-run', from: earlier.from, variances: measuredVariances(earlier, config.scoring.cluster, depthComparisons) }
    : { kind: 'assumed', ...parseOrThrow(PowerAssumptionSchema, request.assume ?? DEFAULT_ASSUMPTION) };
  return planPower(design, source, request);
}

/** Options as given on the command line, or a readable InputError naming each bad flag. */
function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new InputError(`power: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return parsed.data;
}

/** Refuses bad power flags with a readable InputError (before the artefacts are prepared, which can take minutes). */
export function checkPowerRequest(request: PowerRequest): void {
  parseOrThrow(PowerOptionsSchema, request);
  if (!request.estimateFrom) parseOrThrow(PowerAssumptionSchema, request.assume ?? DEFAULT_ASSUMPTION);
}
