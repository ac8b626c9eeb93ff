import { ConfigError } from '../errors.js';
import { DEFAULT_BASELINE, type ExperimentConfig, type ModelPrice } from '../config/experiment.js';
import { createMethod } from '../methods/registry.js';
import { nearest, type ComponentSpec } from '../registry.js';
import { candidateDepth } from '../retrieval/tokenBudget.js';

/** One column of the results: a strategy or method, with a retriever and depth when it retrieves. */
export interface Condition {
  /** `closed-book`, `rag@10`, `bm25/ircot@50`, `role` ... */
  name: string;
  strategyLabel: string;
  strategy: ComponentSpec;
  strategyPath: string;
  usesRetrieval: boolean;
  retrieverLabel: string | null;
  retriever: ComponentSpec | null;
  retrieverPath: string | null;
  /** Passages per retrieval; null for a condition without retrieval or one whose depth is a context budget. */
  k: number | null;
  /** The depth as a context budget in tokens (`rag@2000tok`): retrieval in rank order until the budget is filled. */
  contextTokens?: number;
}

export interface PlannedModel {
  label: string;
  spec: ComponentSpec;
  path: string;
  price?: ModelPrice;
  /** Answers per question and condition (the entry's `samples`, else the run's, else 1). */
  samples: number;
  /** The model's own tokenizer directory (`tokenizer:`), when given. */
  tokenizer?: string;
}

const ascending = (list: readonly number[] | undefined): number[] => [...new Set(list ?? [])].sort((a, b) => a - b);

export function depthsOf(config: ExperimentConfig): number[] {
  return ascending(config.retrieval?.k);
}

/** The run's context budgets in tokens (`retrieval.contextTokens`), ascending. */
export function budgetsOf(config: ExperimentConfig): number[] {
  return ascending(config.retrieval?.contextTokens);
}

/** Passages a condition first asks its retriever for: its k, or its budget's first candidates (0 without retrieval). */
export const retrievalDepth = (c: Pick<Condition, 'k' | 'contextTokens'>): number => c.k ?? (c.contextTokens ? candidateDepth(c.contextTokens) : 0);

/** A token-budget condition's name suffix: `rag@2000tok`. */
export const budgetSuffix = (tokens: number) => `@${tokens}tok`;

export interface PlannedRetriever {
  label: string;
  spec: ComponentSpec;
  path: string;
}

export function retrieversOf(config: ExperimentConfig): PlannedRetriever[] {
  const retrieval = config.retrieval;
  if (!retrieval) return [];
  return retrieval.retrievers.map((entry, i) => {
    const { label, ...spec } = entry;
    return { label: label ?? spec.name, spec: spec as ComponentSpec, path: `retrieval.retrievers[${i}]` };
  });
}

/** A `strategies:` entry: its label, its spec as the registries see it, and its own depths (`k:`, `contextTokens:`) if it names any. */
export function strategySpecs(config: ExperimentConfig): { label: string; spec: ComponentSpec; path: string; depths?: number[]; budgets?: number[] }[] {
  return (config.strategies ?? []).map((entry, i) => {
    if (typeof entry === 'string') return { label: entry, spec: { name: entry }, path: `strategies[${i}]` };
    const { label, k, contextTokens, ...spec } = entry;
    return {
      label: label ?? spec.name,
      spec: spec as ComponentSpec,
      path: `strategies[${i}]`,
      ...(k !== undefined ? { depths: ascending(k) } : {}),
      ...(contextTokens !== undefined ? { budgets: ascending(contextTokens) } : {}),
    };
  });
}

/** What planning needs to know of a strategy or method. */
export interface PlannedMethod {
  usesRetrieval: boolean;
  /** Its depths when neither its entry (`k:`) nor `retrieval.k` names any (page strategies: 1, 3, 5, 10). */
  defaultDepths?: readonly number[];
}

export function modelsOf(config: ExperimentConfig): PlannedModel[] {
  return (config.models ?? []).map((entry, i) => {
    const { label, price, samples, tokenizer, ...spec } = entry;
    const model = typeof spec.model === 'string' ? spec.model : spec.name;
    return { label: label ?? model, spec: spec as ComponentSpec, path: `models[${i}]`, ...(price ? { price } : {}), samples: samples ?? config.samples ?? 1, ...(tokenizer ? { tokenizer } : {}) };
  });
}

/**
 * Expands strategies × retrievers × depths into conditions. A strategy that needs retrieval
 * runs once per retriever and depth (its entry's `k:`, else `retrieval.k`, else its own default
 * depths) and once per retriever and context budget (`contextTokens:`, `rag@2000tok`); one that
 * does not runs once. With a single retriever the
 * retriever label is left out of condition names (`rag@10`), otherwise it prefixes them.
 */
export function planConditions(
  config: ExperimentConfig,
  methodOf: (strategy: ComponentSpec, path: string) => PlannedMethod,
): Condition[] {
  const retrievers = retrieversOf(config);
  const runDepths = depthsOf(config);
  const runBudgets = budgetsOf(config);
  const conditions: Condition[] = [];
  for (const strategy of strategySpecs(config)) {
    const method = methodOf(strategy.spec, strategy.path);
    if (!method.usesRetrieval) {
      conditions.push({
        name: strategy.label,
        strategyLabel: strategy.label,
        strategy: strategy.spec,
        strategyPath: strategy.path,
        usesRetrieval: false,
        retrieverLabel: null,
        retriever: null,
        retrieverPath: null,
        k: null,
      });
      continue;
    }
    // The entry's own `k:` and `contextTokens:` (either one replaces both of the run's), else the
    // run's `retrieval.k` and `retrieval.contextTokens`, else the strategy's own default depths.
    const own = strategy.depths !== undefined || strategy.budgets !== undefined;
    const budgets = own ? (strategy.budgets ?? []) : runBudgets;
    const depths = own ? (strategy.depths ?? []) : runDepths.length || runBudgets.length ? runDepths : ascending(method.defaultDepths);
    if (depths.length === 0 && budgets.length === 0) {
      throw new ConfigError(`${strategy.path}: ${strategy.label} retrieves, but no depth is given: set \`retrieval.k\` (or \`retrieval.contextTokens\`) or the entry's own \`k:\``);
    }
    for (const retriever of retrievers) {
      const prefix = retrievers.length > 1 ? `${retriever.label}/` : '';
      const retrieving = { strategyLabel: strategy.label, strategy: strategy.spec, strategyPath: strategy.path, usesRetrieval: true, retrieverLabel: retriever.label, retriever: retriever.spec, retrieverPath: retriever.path };
      for (const k of depths) conditions.push({ name: `${prefix}${strategy.label}@${k}`, ...retrieving, k });
      for (const tokens of budgets) conditions.push({ name: `${prefix}${strategy.label}${budgetSuffix(tokens)}`, ...retrieving, k: null, contextTokens: tokens });
    }
  }
  const names = new Set<string>();
  for (const c of conditions) {
    if (names.has(c.name)) throw new ConfigError(`two conditions are both named "${c.name}"; give the strategies or retrievers distinct labels`);
    names.add(c.name);
  }
  return conditions;
}

/** The grid's conditions without building any stage: each method is created (and closed) only to ask whether it retrieves. */
export async function plannedConditions(config: ExperimentConfig): Promise<Condition[]> {
  const methods = new Map<string, PlannedMethod>();
  for (const { spec, path } of strategySpecs(config)) {
    const method = await createMethod(spec, path);
    methods.set(path, { usesRetrieval: method.usesRetrieval, ...(method.defaultDepths ? { defaultDepths: method.defaultDepths } : {}) });
    await method.close?.();
  }
  return planConditions(config, (_spec, path) => methods.get(path)!);
}

/** The condition every paired difference is taken against, and why it is that one when `scoring.baseline` does not name it as written. */
export interface ResolvedBaseline {
  name: string;
  /** How it was found: null when `scoring.baseline` names it. */
  why: string | null;
}

/**
 * `scoring.baseline` as a condition of the grid: a condition of that name; else the one condition
 * of the strategy of that name or label (`{ name: closed-book, label: 闭卷 }`; `rag` run at one k);
 * else, for the default closed-book in a grid without one, the grid's first condition. Anything
 * else is refused (exit 2) naming the grid's conditions, before any artefact is built or model called.
 */
export function resolveBaseline(requested: string, conditions: readonly Condition[]): ResolvedBaseline {
  const names = conditions.map((c) => c.name);
  if (names.includes(requested)) return { name: requested, why: null };
  const running = conditions.filter((c) => c.strategy.name === requested || c.strategyLabel === requested);
  if (running.length === 1) {
    const only = running[0]!;
    return { name: only.name, why: only.strategyLabel === requested ? `the one condition of ${requested}` : `the ${requested} strategy, labelled ${only.strategyLabel}` };
  }
  if (running.length > 1) {
    throw new ConfigError(`scoring.baseline: "${requested}" names no condition, and ${running.length} conditions run the ${requested} strategy (${running.map((c) => c.name).join(', ')}); set scoring.baseline to one of them`);
  }
  if (requested === DEFAULT_BASELINE && conditions.length > 0) return { name: names[0]!, why: `no ${DEFAULT_BASELINE} condition: the grid's first; set scoring.baseline to choose another` };
  const guess = nearest(requested, names);
  throw new ConfigError(`scoring.baseline: "${requested}" is not a condition of this run (its conditions: ${names.join(', ')})${guess ? `; did you mean "${guess}"?` : ''}`);
}

/** Each `scoring.versus` entry names a condition of the grid, or the run is refused like an unknown baseline. */
function assertVersusConditions(versus: readonly string[], conditions: readonly Condition[]): void {
  const names = conditions.map((c) => c.name);
  for (const [i, v] of versus.entries()) {
    if (names.includes(v)) continue;
    const guess = nearest(v, names);
    throw new ConfigError(`scoring.versus[${i}]: "${v}" is not a condition of this run (its conditions: ${names.join(', ')})${guess ? `; did you mean "${guess}"?` : ''}`);
  }
}

/**
 * The config with `scoring.baseline` resolved to a condition's name (the one place it is resolved:
 * the stored config.json, the summary, the report and the viewer read this name), and a line that
 * says which condition it is when `scoring.baseline` does not name it as written.
 */
export async function withResolvedBaseline(config: ExperimentConfig, conditions?: readonly Condition[]): Promise<{ config: ExperimentConfig; line: string | null }> {
  const grid = conditions ?? (await plannedConditions(config));
  const baseline = resolveBaseline(config.scoring.baseline, grid);
  assertVersusConditions(config.scoring.versus, grid);
  return {
    config: baseline.name === config.scoring.baseline ? config : { ...config, scoring: { ...config.scoring, baseline: baseline.name } },
    line: baseline.why ? `baseline: ${baseline.name} (${baseline.why})` : null,
  };
}
