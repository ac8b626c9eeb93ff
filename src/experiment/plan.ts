import { ConfigError } from '../errors.js';
import type { ExperimentConfig, ModelPrice } from '../config/experiment.js';
import type { ComponentSpec } from '../registry.js';

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
  k: number | null;
}

export interface PlannedModel {
  label: string;
  spec: ComponentSpec;
  path: string;
  price?: ModelPrice;
  /** Answers per question and condition (the entry's `samples`, else the run's, else 1). */
  samples: number;
}

export function depthsOf(config: ExperimentConfig): number[] {
  const k = config.retrieval?.k;
  if (k === undefined) return [];
  return [...new Set(k)].sort((a, b) => a - b);
}

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

/** A `strategies:` entry: its label, its spec as the registries see it, and its own depths (`k:`) if it names any. */
export function strategySpecs(config: ExperimentConfig): { label: string; spec: ComponentSpec; path: string; depths?: number[] }[] {
  return config.strategies.map((entry, i) => {
    if (typeof entry === 'string') return { label: entry, spec: { name: entry }, path: `strategies[${i}]` };
    const { label, k, ...spec } = entry;
    const depths = k === undefined ? undefined : [...new Set(typeof k === 'number' ? [k] : k)].sort((a, b) => a - b);
    return { label: label ?? spec.name, spec: spec as ComponentSpec, path: `strategies[${i}]`, ...(depths ? { depths } : {}) };
  });
}

/** What planning needs to know of a strategy or method. */
export interface PlannedMethod {
  usesRetrieval: boolean;
  /** Its depths when neither its entry (`k:`) nor `retrieval.k` names any (page strategies: 1, 3, 5, 10). */
  defaultDepths?: readonly number[];
}

export function modelsOf(config: ExperimentConfig): PlannedModel[] {
  return config.models.map((entry, i) => {
    const { label, price, samples, ...spec } = entry;
    const model = typeof spec.model === 'string' ? spec.model : spec.name;
    return { label: label ?? model, spec: spec as ComponentSpec, path: `models[${i}]`, ...(price ? { price } : {}), samples: samples ?? config.samples ?? 1 };
  });
}

/**
 * Expands strategies × retrievers × depths into conditions. A strategy that needs retrieval
 * runs once per retriever and depth (its entry's `k:`, else `retrieval.k`, else its own default
 * depths); one that does not runs once. With a single retriever the
 * retriever label is left out of condition names (`rag@10`), otherwise it prefixes them.
 */
export function planConditions(
  config: ExperimentConfig,
  methodOf: (strategy: ComponentSpec, path: string) => PlannedMethod,
): Condition[] {
  const retrievers = retrieversOf(config);
  const runDepths = depthsOf(config);
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
    // The entry's own `k:`, else the run's `retrieval.k`, else the strategy's own default depths.
    const depths = strategy.depths ?? (runDepths.length ? runDepths : [...(method.defaultDepths ?? [])].sort((a, b) => a - b));
    if (depths.length === 0) {
      throw new ConfigError(`${strategy.path}: ${strategy.label} retrieves, but no depth is given: set \`retrieval.k\` or the entry's own \`k:\``);
    }
    for (const retriever of retrievers) {
      for (const k of depths) {
        const prefix = retrievers.length > 1 ? `${retriever.label}/` : '';
        conditions.push({
          name: `${prefix}${strategy.label}@${k}`,
          strategyLabel: strategy.label,
          strategy: strategy.spec,
          strategyPath: strategy.path,
          usesRetrieval: true,
          retrieverLabel: retriever.label,
          retriever: retriever.spec,
          retrieverPath: retriever.path,
          k,
        });
      }
    }
  }
  const names = new Set<string>();
  for (const c of conditions) {
    if (names.has(c.name)) throw new ConfigError(`two conditions are both named "${c.name}"; give the strategies or retrievers distinct labels`);
    names.add(c.name);
  }
  return conditions;
}
