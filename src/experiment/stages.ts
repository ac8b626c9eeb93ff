import { loadTokenizerSpec, resolveTokenizerSpec, tokenizerUnit } from '../chunking/tokenCounter.js';
import { ESTIMATE_UNIT, estimateTokens, type TokenCounter } from '../text/tokenCounter.js';
import type { ExperimentConfig } from '../config/experiment.js';
import type { ComponentSpec } from '../registry.js';
import { ConfigError, DataFileError } from '../errors.js';
import { benchmarks } from '../benchmarks/registry.js';
import type { BenchmarkDescription, BenchmarkItem } from '../benchmarks/types.js';
import { missingGoldChunks } from '../retrieval/goldChunks.js';
import type { GoldSpan } from '../benchmarks/goldSpans.js';
import { placeGoldForRetrievers, type GoldSpanStage } from './goldSpanStage.js';
import { generators } from '../generation/registry.js';
import { PAGE_READER_NOTE } from '../generation/pageReaderSchema.js';
import type { Generator, GeneratorDescription } from '../generation/types.js';
import { createMethod } from '../methods/registry.js';
import type { RagMethod } from '../methods/types.js';
import type { ModelPrice } from '../config/experiment.js';
import { createRetrieverContext } from '../retrieval/registry.js';
import { createRetrieverWithRerank } from '../rerank/rerankedRetriever.js';
import { withHandOff } from '../retrieval/handOff.js';
import type { RetrievalQuery, Retriever, RetrieverDescription } from '../retrieval/types.js';
import { extractors } from '../scoring/extractors/registry.js';
import { judges } from '../scoring/judges/registry.js';
import { metricInfo, metricLabel, runMetric } from '../scoring/metrics.js';
import { scoreItem } from '../scoring/scoreItem.js';
import { loadTransformersTokenVectors } from '../scoring/textMetrics/transformersTokenVectors.js';
import type { AnswerExtractor, Judge } from '../scoring/types.js';
import type { ItemScore } from '../runFiles/itemRecord.js';
import { readFixtureRecord } from '../runFiles/modelFiles.js';
import { modelsOf, retrieversOf, strategySpecs } from './plan.js';
import type { ChatModelGenerator } from '../generation/chatModelGenerator.js';
import type { BatchQueue } from '../generation/batchQueue.js';
import type { QueryVectorCacheOptions } from '../retrieval/queryVectorCache.js';

/** A model of the grid: its generator, and the tokens its context budgets and lengths are counted in. */
export interface StageModel {
  label: string;
  generator: Generator;
  price?: ModelPrice;
  samples: number;
  /** Its tokenizer's count (`tokenizer:`), else the CJK estimate. */
  countTokens: TokenCounter;
  /** What the count is, on every surface: `tokens (estimate)` or `tokens (<dir> tokenizer)`. */
  tokenUnit: string;
}

/** The stage objects of one experiment, built from the registries by name. */
export interface Stages {
  items: BenchmarkItem[];
  benchmarkDescriptions: BenchmarkDescription[];
  /** `samples`: answers per question and condition (repeated samples). */
  models: StageModel[];
  /** The method (or single-shot strategy) of a `strategies:` entry, by its config path. */
  method(spec: ComponentSpec, path: string): RagMethod;
  retriever(label: string): Retriever;
  queryFor(item: BenchmarkItem): RetrievalQuery;
  /** The item's gold evidence as character spans of the documents the retriever's corpus reads (chunking-independent); undefined without. */
  goldSpans(item: BenchmarkItem, retrieverLabel: string | null): GoldSpan[] | undefined;
  score(item: BenchmarkItem, response: string): Promise<ItemScore>;
  metricFor(item: BenchmarkItem): string;
  /** What manifest.json records as `components`. */
  describe(): { generators: Record<string, GeneratorDescription>; retrievers: Record<string, RetrieverDescription>; [key: string]: unknown };
  /**
   * The batch API queues of the run's models, judge and answer extractor: those with `batch` on, or
   * (`all`) every one with a response cache — what `hisrag batch export` writes out.
   */
  batchQueues(options?: { all?: boolean }): BatchQueue[];
  /** Human-readable lines naming each component (printed at the start of a run). */
  describeLines(): string[];
  close(): Promise<void>;
}


const OFFLINE_STAND_INS: Record<string, string> = {
  extractive: 'offline stand-in: answers with the retrieved sentences that overlap the question most',
  'page-reader': PAGE_READER_NOTE,
  lexical: 'offline stand-in: a rubric item counts as hit when enough of its content appears in the answer',
  rules: 'offline rule-based answer extraction',
};

function componentSpecs(config: ExperimentConfig) {
  const benchmarkSpecs = config.benchmarks.map((spec, i) => ({ spec, path: `benchmarks[${i}]` }));
  return {
    benchmarkSpecs,
    strategyList: strategySpecs(config),
    retrieverList: retrieversOf(config),
    modelList: modelsOf(config),
    judgeSpec: config.judge ?? { name: 'lexical' },
    extractorSpec: config.extractor ?? { name: 'rules' },
  };
}

/**
 * What the experiment schema cannot see field by field (it has already checked every component's
 * params, in the one pass that loaded the config): distinct labels, and a retriever for every
 * strategy that retrieves.
 */
export async function validateComponents(config: ExperimentConfig): Promise<void> {
  const { strategyList, retrieverList, modelList } = componentSpecs(config);
  for (const [what, list] of [['models', modelList], ['retrievers', retrieverList]] as const) {
    const labels = new Set<string>();
    for (const { label, path } of list) {
      if (labels.has(label)) throw new ConfigError(`${path}.label: two ${what} are both labelled "${label}"; give them distinct labels`);
      labels.add(label);
    }
  }
  let usesRetrieval = false;
  for (const { spec, path } of strategyList) usesRetrieval ||= (await createMethod(spec, path)).usesRetrieval;
  if (usesRetrieval && retrieverList.length === 0) {
    throw new ConfigError('retrieval: a strategy uses retrieval but the config has no `retrieval` section (retriever and k)');
  }
}

/** `, efSearch 157 (recall@100 0.992 against exact search, tuned at build)` for HNSW retrievers. */
function describeEfSearch({ efSearch, efSearchRecall: tuning }: RetrieverDescription): string {
  if (typeof efSearch !== 'number') return '';
  if (!tuning) return `, efSearch ${efSearch}`;
  const how = tuning.tuned ? 'tuned on the index' : 'measured on the index';
  return `, efSearch ${efSearch} (recall@${tuning.k} ${tuning.recall.toFixed(3)} against exact search, ${how}${tuning.reached === false ? '; below its target' : ''})`;
}

/** The metric an item's score is on (the summary's `metric`). */
export function metricOf(item: BenchmarkItem): string {
  return item.kind === 'longhisdoc' ? 'accuracy' : item.kind === 'mcq' ? 'mcq' : item.kind === 'rubric' ? 'rs' : 'rougeL';
}

/**
 * One mean per condition needs one metric: a run whose questions are scored by different
 * metrics (ProHist Rubric Score, LongHisDoc accuracy, ROUGE-L against reference answers) is refused
 * before anything is answered. ProHist's own mix of rubric and multiple-choice questions, both
 * 0–100 scores of the benchmark, is the one exception (the summary names it `mcq+rs`).
 */
function assertOneMetric(items: BenchmarkItem[]): void {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(metricOf(item), (counts.get(metricOf(item)) ?? 0) + 1);
  const metrics = [...counts.keys()].sort();
  if (metrics.length <= 1 || metrics.join('+') === 'mcq+rs') return;
  const listed = metrics.map((m) => `${counts.get(m)} by ${m}`).join(', ');
  throw new ConfigError(
    `benchmark: this run's questions are scored by different metrics (${listed}), and one mean per condition would mix them; ` +
      'run each benchmark in its own experiment, or filter the questions so that one metric remains',
  );
}

/**
 * A method that scores sentences by the retriever's relevance (extractive `refine`) needs a
 * retriever that can: checked once every retriever is open, before anything is answered.
 */
function assertRelevanceAvailable(
  strategyList: { spec: ComponentSpec; path: string }[],
  methodByPath: Map<string, RagMethod>,
  retrieverList: { label: string; path: string }[],
  retrieverByLabel: Map<string, Retriever>,
): void {
  for (const { spec, path } of strategyList) {
    if (!methodByPath.get(path)?.needsRelevance) continue;
    for (const { label, path: retrieverPath } of retrieverList) {
      const retriever = retrieverByLabel.get(label)!;
      if (retriever.relevance) continue;
      throw new ConfigError(
        `${path}.mode: ${spec.name} with mode: extractive scores sentences with the retriever's embedder (or BM25), ` +
          `but ${retrieverPath} (${retriever.name}) has none; use an hnsw, exact, lancedb or bm25 retriever, or mode: abstractive`,
      );
    }
  }
}

/** Gold chunk ids naming nothing in a retriever's index stop the run before any model call (a misspelt id would only lower recall). */
function assertGoldInIndexes(items: BenchmarkItem[], specs: Record<string, unknown>[]): void {
  const references = items.filter((item) => item.goldChunkIds?.length).map((item) => ({ itemId: item.id, origin: item.origin, chunkIds: item.goldChunkIds! }));
  const indexDirs = new Set<string>();
  const collect = (spec: Record<string, unknown>) => {
    if (typeof spec.index === 'string') indexDirs.add(spec.index);
    for (const child of Array.isArray(spec.retrievers) ? spec.retrievers : []) collect(child as Record<string, unknown>);
  };
  specs.forEach(collect);
  // Counted per question, not per question × index: one line names a question, its missing ids and every index that lacks them.
  const byQuestion = new Map<string, { itemId: string; origin: string | undefined; ids: Set<string>; indexes: string[] }>();
  const twins: Record<string, string> = {};
  for (const dir of indexDirs) {
    for (const { itemId, origin, missing, twins: found } of missingGoldChunks(dir, references)) {
      const key = `${origin ?? ''}\u0000${itemId}`;
      const entry = byQuestion.get(key) ?? { itemId, origin, ids: new Set<string>(), indexes: [] };
      for (const id of missing) entry.ids.add(id);
      Object.assign(twins, found);
      entry.indexes.push(dir);
      byQuestion.set(key, entry);
    }
  }
  const problems = [...byQuestion.values()].map(
    ({ itemId, origin, ids, indexes }) => `${origin ?? `question ${itemId}`}: gold_chunk_ids: ${[...ids].map((id) => (twins[id] !== undefined ? `"${id}" (an exact duplicate the corpus dropped: its text is chunk "${twins[id]}"; name that id)` : `"${id}"`)).join(', ')} not in ${indexes.join(', ')}${origin ? ` (question ${itemId})` : ''}`,
  );
  if (problems.length > 0) {
    const indexWord = indexDirs.size > 1 ? 'indexes' : 'index';
    throw new DataFileError(`benchmark: ${problems.length} question${problems.length > 1 ? 's name' : ' names'} gold chunks that are not in the ${indexWord}:\n${problems.slice(0, 20).map((line) => `  ${line}`).join('\n')}${problems.length > 20 ? '\n  …' : ''}`);
  }
}

/** The questions of every benchmark, checked: some left after filters, ids unique, none empty, one metric. */
async function loadBenchmarkItems(benchmarkSpecs: { spec: ComponentSpec; path: string }[]): Promise<{ items: BenchmarkItem[]; benchmarkDescriptions: BenchmarkDescription[] }> {
  const items: BenchmarkItem[] = [];
  const benchmarkDescriptions: BenchmarkDescription[] = [];
  for (const { spec, path } of benchmarkSpecs) {
    const benchmark = await benchmarks.create(spec, undefined, path);
    const loaded = await benchmark.load();
    items.push(...loaded);
    benchmarkDescriptions.push({ ...benchmark.describe(), items: loaded.length });
  }
  if (items.length === 0) throw new ConfigError('benchmark: no questions left after filters');
  const seenIds = new Set<string>();
  for (const item of items) {
    const id = `${item.benchmark}:${item.id}`;
    if (seenIds.has(id)) throw new ConfigError(`benchmark: question id "${id}" appears twice; ids must be unique`);
    if (!item.question.trim()) throw new DataFileError(`benchmark ${item.benchmark}: question ${item.id}: question: empty`);
    seenIds.add(id);
  }
  assertOneMetric(items);
  return { items, benchmarkDescriptions };
}

/**
 * Human-readable lines naming each component (`Stages.describeLines`): what was skipped, each
 * retriever, embedder, reranker, method, generator, the metric, and the rubric judge and answer
 * extractor only where some question is scored by them (rubric questions, LongHisDoc questions).
 */
function componentLines({ items, benchmarkDescriptions, retrieverByLabel, methods, models, judge, extractor }: {
  items: BenchmarkItem[];
  benchmarkDescriptions: BenchmarkDescription[];
  retrieverByLabel: Map<string, Retriever>;
  methods: Set<RagMethod>;
  models: Stages['models'];
  judge: Judge;
  extractor: AnswerExtractor;
}): string[] {
  const lines: string[] = [];
  for (const described of benchmarkDescriptions) {
    const { skippedUnscorable: skipped, images } = described;
    if (skipped) lines.push(`benchmark ${described.label ?? described.name}: ${skipped.count} records without a rubric left out (onUnscorable: skip): ${skipped.ids.join(', ')}${skipped.count > skipped.ids.length ? ', …' : ''}`);
    const imageProblems = Object.entries(images?.problems ?? {});
    if (images && imageProblems.length > 0) lines.push(`benchmark ${described.label ?? described.name}: page image problems (onImageProblem: warn), ${imageProblems.map(([kind, n]) => `${n} ${kind}`).join(', ')}; ${images.pages} page images usable; e.g. ${images.examples[0]}`);
  }
  for (const [label, r] of retrieverByLabel) {
    const described = r.describe();
    lines.push(`retriever ${label}: ${r.name}${described.index ? ` over ${described.index}` : ''}${describeEfSearch(described)}`);
    const { embedder, rerank } = described;
    if (embedder?.model) {
      const fixture = readFixtureRecord(embedder.model);
      const stand = !fixture
        ? ''
        : fixture.kind === 'clip'
          ? ' (generated fixture model: an offline stand-in for a CLIP-family page-image encoder, aligned on colour only)'
          : ' (generated fixture model: an offline stand-in for bge-large-zh-v1.5)';
      // The conventions the index was built with (src/embedding/conventions.ts), prefixes only where there are any.
      const prefixes = (['queryPrefix', 'documentPrefix'] as const).filter((key) => embedder[key]).map((key) => `, ${key} ${JSON.stringify(embedder[key])}`).join('');
      lines.push(`embedder for ${label}: ${embedder.model}, ${embedder.dimension} dimensions, ${embedder.pooling} pooling${prefixes}${stand}`);
    }
    if (rerank) {
      const what = rerank.model ?? rerank.endpoint ?? '';
      const stand = rerank.model && readFixtureRecord(rerank.model) ? ' (generated fixture cross-encoder: an offline stand-in for bge-reranker-large)' : '';
      lines.push(`reranker for ${label}: ${rerank.name}${what ? ` ${what}` : ''}, top ${rerank.candidates} first-stage candidates reranked once per question${stand}`);
    }
  }
  for (const method of methods) lines.push(...(method.describe?.() ?? []));
  for (const m of models) {
    // A sampling stand-in (the extractive one at temperature > 0) says how its samples differ.
    const sampling = m.generator.describe().sampling;
    const samples = m.samples > 1 ? `; ${m.samples} samples per question and condition` : '';
    lines.push(`generator ${m.label}: ${m.generator.name}${OFFLINE_STAND_INS[m.generator.name] ? ` (${OFFLINE_STAND_INS[m.generator.name]})` : ''}${sampling ? ` (${sampling})` : ''}${samples}${m.tokenUnit !== ESTIMATE_UNIT ? `; context counted in ${m.tokenUnit}` : ''}`);
  }
  const metric = runMetric(items.map(metricOf));
  if (metric) lines.push(`metric: ${metricLabel(metric)}, ${metricInfo(metric).description}`);
  if (items.some((item) => item.kind === 'rubric')) lines.push(`rubric judge: ${judge.name}${OFFLINE_STAND_INS[judge.name] ? ` (${OFFLINE_STAND_INS[judge.name]})` : ` (${judge.model})`}`);
  if (items.some((item) => item.kind === 'longhisdoc')) lines.push(`answer extractor: ${extractor.name}${OFFLINE_STAND_INS[extractor.name] ? ` (${OFFLINE_STAND_INS[extractor.name]})` : ''}`);
  return lines;
}

/** Builds the stage objects of an experiment from the registries (after validating them); `queryVectors`: see createRetrieverContext. */
export async function buildStages(config: ExperimentConfig, options: { queryVectors?: QueryVectorCacheOptions } = {}): Promise<Stages> {
  await validateComponents(config);
  const { benchmarkSpecs, strategyList, retrieverList, modelList, judgeSpec, extractorSpec } = componentSpecs(config);
  const { items, benchmarkDescriptions } = await loadBenchmarkItems(benchmarkSpecs);
  assertGoldInIndexes(items, retrieverList.map(({ spec }) => spec));

  const methodByPath = new Map<string, RagMethod>();
  for (const { spec, path } of strategyList) {
    const method = await createMethod(spec, path);
    // Methods that need data beyond the item (the full-document setting reads OCR pages) load it once here.
    await method.prepare?.(items);
    methodByPath.set(path, method);
  }

  const retrieverByLabel = new Map<string, Retriever>();
  const retrieverContext = createRetrieverContext({ seed: config.seed, ...options });
  let gold: GoldSpanStage = { spansFor: () => undefined, lines: [] };
  const closers: (() => Promise<void>)[] = [];
  // Methods release what they opened themselves (CRAG's fallback retriever and evaluator), whoever
  // built the stages (a run, a dry run, a batch export) and however it ended.
  for (const method of new Set(methodByPath.values())) if (method.close) closers.push(() => method.close!());
  try {
    for (const { label, spec, path } of retrieverList) {
      // What the run's plan retrieves ahead of the run is handed on to the run (computeAheadOfRun).
      const retriever = withHandOff(await createRetrieverWithRerank(spec, retrieverContext, path));
      retrieverByLabel.set(label, retriever);
      closers.push(() => retriever.close());
    }
    assertRelevanceAvailable(strategyList, methodByPath, retrieverList, retrieverByLabel);
    gold = await placeGoldForRetrievers(items, retrieverList.map(({ label, spec }) => ({ label, spec: spec as Record<string, unknown> })));
  } catch (error) {
    for (const close of closers) await close().catch(() => {});
    throw error;
  }

  const models: Stages['models'] = [];
  for (const { label, spec, path, price, samples, tokenizer } of modelList) {
    const counting = await modelTokenCounter(tokenizer, path);
    models.push({ label, generator: await generators.create(spec, undefined, path), ...(price ? { price } : {}), samples, ...counting });
  }
  for (const { spec, path } of strategyList) {
    if (!methodByPath.get(path)?.needsToolCalling) continue;
    for (const [i, model] of models.entries()) {
      if (model.generator.chatTurn) continue;
      for (const close of closers) await close().catch(() => {});
      throw new ConfigError(
        `${path}.name: method ${spec.name} offers the model a search tool, but models[${i}] (${model.label}, generator ${model.generator.name}) cannot call tools; use an OpenAI-compatible endpoint whose model supports tool calling`,
      );
    }
  }
  const judge: Judge = await judges.create(judgeSpec, undefined, 'judge');
  const extractor: AnswerExtractor = await extractors.create(extractorSpec, undefined, 'extractor');
  const scope = config.retrieval?.scope ?? 'corpus';
  const bertScore = config.scoring.bertScoreModel
    ? await loadTransformersTokenVectors({ model: config.scoring.bertScoreModel })
    : undefined;
  if (bertScore) closers.push(async () => bertScore.dispose());

  return {
    items,
    benchmarkDescriptions,
    models,
    method(spec, path) {
      const found = methodByPath.get(path);
      if (!found) throw new Error(`no method built for ${path} (${spec.name})`);
      return found;
    },
    retriever(label) {
      const found = retrieverByLabel.get(label);
      if (!found) throw new Error(`no retriever labelled ${label}`);
      return found;
    },
    queryFor(item) {
      return {
        text: item.question,
        itemId: `${item.benchmark}:${item.id}`,
        ...(scope === 'document' && item.docId ? { docId: item.docId } : {}),
        gold: {
          ...(item.goldChunkIds ? { chunkIds: item.goldChunkIds } : {}),
          ...(item.evidencePages ? { pages: item.evidencePages } : {}),
          ...(item.docId ? { docId: item.docId } : {}),
        },
      };
    },
    goldSpans: (item, retrieverLabel) => gold.spansFor(item, retrieverLabel),
    score(item, response) {
      return scoreItem(item, response, {
        judge,
        extractor,
        compat: config.scoring.compat,
        textMetrics: config.scoring.textMetrics,
        ...(bertScore ? { tokenVectors: bertScore.tokenVectors } : {}),
      });
    },
    metricFor: metricOf,
    batchQueues(options = {}) {
      const queues = [...models.map((m) => m.generator), judge.generator, extractor.generator]
        // Duck-typed: an instanceof check would load the LLM client code into every run that has none.
        .map((g) => (g && 'batchQueue' in g ? (g as ChatModelGenerator).batchQueue : undefined))
        .filter((q): q is BatchQueue => q !== undefined && (options.all || q.enabled));
      return [...new Set(queues)];
    },
    describe() {
      return {
        generators: Object.fromEntries(models.map((m) => [m.label, m.generator.describe()])),
        retrievers: Object.fromEntries([...retrieverByLabel].map(([label, r]) => [label, r.describe()])),
        strategies: strategyList.map((s) => s.label),
        judge: { name: judge.name, model: judge.model },
        extractor: { name: extractor.name },
        scope,
      };
    },
    describeLines() {
      return [...componentLines({ items, benchmarkDescriptions, retrieverByLabel, methods: new Set(methodByPath.values()), models, judge, extractor }), ...gold.lines];
    },
    async close() {
      for (const close of closers) await close().catch(() => {});
    },
  };
}

/** A model's token counter: its `tokenizer:` (directory or `tiktoken:<encoding>`) loaded (refused naming `models[i].tokenizer` when unreadable), else the CJK estimate. */
async function modelTokenCounter(tokenizer: string | undefined, path: string): Promise<{ countTokens: TokenCounter; tokenUnit: string }> {
  if (!tokenizer) return { countTokens: estimateTokens, tokenUnit: ESTIMATE_UNIT };
  const spec = resolveTokenizerSpec(tokenizer, process.cwd());
  const countTokens = await loadTokenizerSpec(spec).catch((error: unknown) => {
    throw new ConfigError(`${path}.tokenizer: ${(error as Error).message}`);
  });
  return { countTokens, tokenUnit: tokenizerUnit(spec) };
}
