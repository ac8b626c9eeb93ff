import type { BenchmarkItem } from '../benchmarks/types.js';
import type { ExperimentConfig } from '../config/experiment.js';
import { InputError, InterruptedError } from '../errors.js';
import { modelsOf, retrievalDepth, type Condition } from '../experiment/plan.js';
import { otherQuery } from '../experiment/taskContext.js';
import { mostPassagesWithin, retrieveWithinBudget } from '../retrieval/tokenBudget.js';
import type { StageModel, Stages } from '../experiment/stages.js';
import type { MethodContext, RagMethod } from '../methods/types.js';
import { ESTIMATE_UNIT, estimateTokens, type TokenCounter } from '../text/tokenCounter.js';
import type { ChatMessage } from '../prompting/types.js';
import { messageTokens, promptImages } from '../prompting/messageContent.js';
import { imageCounterOf } from '../generation/imageTokens.js';
import type { Generator } from '../generation/types.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import type { EarlierRun } from './earlierRun.js';
import { addBounds, answerBounds, type Bound, type BoundInputs } from './callBounds.js';
import { passageLimits } from './passageBounds.js';
import { corpusOfChunks } from '../analysis/depthFamilies.js';
import type { PlanCell, Range, RunPlan } from '../runFiles/plan.js';


/** The prompt of a method's next model call, caught instead of sent. */
class PromptCaught extends Error {
  constructor(readonly messages: ChatMessage[]) {
    super('dry run: prompt caught before the call');
  }
}

const sumRange = (ranges: Range[]): Range => ({
  min: ranges.reduce((n, r) => n + r.min, 0),
  max: ranges.some((r) => r.max === null) ? null : ranges.reduce((n, r) => n + r.max!, 0),
});

const scaleRange = (r: Range, factor: number): Range => ({ min: r.min * factor, max: r.max === null ? null : r.max * factor });

/** Prompt tokens of a call as the run counts them: text by `countTokens` (the model's tokenizer, else the estimate), each page image by the generator's formula (refused, before any call, by one that cannot see images). */
export function planPromptTokens(messages: ChatMessage[], generator: Generator, countTokens: TokenCounter = estimateTokens): { total: number; images: number } {
  const countImage = imageCounterOf(generator, messages);
  const images = promptImages(messages).reduce((n, image) => n + countImage(image), 0);
  return { total: messages.reduce((n, m) => n + messageTokens(m, countTokens, () => 0), 0) + images, images };
}

/** What planning takes besides the stages: an earlier run's means (`--estimate-from`), and a stop signal. */
export interface PlanOptions {
  earlier?: EarlierRun;
  /** Checked between cells: a plan of a large grid (every prompt built) stops at the next cell. */
  signal?: AbortSignal;
}

/**
 * The plan of a grid on stages already built; no model is called. One-prompt conditions get each
 * prompt built exactly as the run will (exact calls and tokens; the response cache says which are free).
 * A multi-step method gets bounds no run can leave, from the calls it declares (`callBounds.ts`); the
 * means of an earlier run come as a separate `estimate`, batch models' price at the batch rate too.
 */
export async function planRun(config: ExperimentConfig, stages: Stages, conditions: Condition[], options: PlanOptions = {}): Promise<RunPlan> {
  const earlier = options.earlier ? earlierMeans(options.earlier) : undefined;
  const retrieve = retrievalMemo(stages, conditions);
  const passageLimitOf = passageLimits();
  const settings = new Map(modelsOf(config).map((m) => [m.label, m.path]));
  const judgeCallsPerItem = (item: BenchmarkItem) =>
    (config.judge?.name === 'llm' && item.kind === 'rubric' ? 1 : 0) + (config.extractor?.name === 'llm' && item.kind === 'longhisdoc' ? 1 : 0);
  const judgeCalls = stages.items.reduce((sum, item) => sum + judgeCallsPerItem(item), 0);
  const cells: PlanCell[] = [];
  for (const model of stages.models) {
    const { maxTokens, batch } = model.generator.describe();
    const maxTokensSetting = `${settings.get(model.label) ?? 'models[i]'}.maxTokens`;
    // A generator that answers through a batch API says so (`batch: true`): its calls cost the batch rate.
    const batchDiscount = batch && model.price ? model.price.batchDiscount : undefined;
    for (const condition of conditions) {
      if (options.signal?.aborted) throw new InterruptedError('interrupted while planning the run');
      const method = stages.method(condition.strategy, condition.strategyPath);
      const declared = method.calls;
      const inputs: BoundInputs = {
        k: passagesBound(condition),
        passages: condition.retrieverLabel && condition.retriever ? passageLimitOf(condition.retrieverLabel, condition.retriever) : null,
        maxTokens,
        maxTokensSetting,
        countPrompt: (messages) => planPromptTokens(messages, model.generator).total,
      };
      const once = await boundAnswers(stages, condition, model, method, inputs, retrieve);
      // Repeated samples (`samples: n`): every question answered n times, each answer costing what one does.
      const samples = model.samples;
      const calls = scaleBound(once.calls, samples);
      const prompt = scaleBound(once.prompt, samples);
      const images = scaleRange(once.images, samples);
      const n = stages.items.length * samples;
      const basis: PlanCell['basis'] = declared?.singleShot ? 'exact' : 'bounds';
      const completion: Bound = declared?.external
        ? { min: 0, max: null, unbounded: prompt.unbounded ?? [] }
        : maxTokens !== undefined && calls.max !== null
          ? { min: 0, max: calls.max * maxTokens }
          : { min: 0, max: null, unbounded: [`set ${maxTokensSetting} to bound it`] };
      const priceOf = (p: number, c: number) => (model.price ? (p * model.price.inputPerMillion + c * model.price.outputPerMillion) / 1e6 : 0);
      const price = model.price
        ? { min: priceOf(prompt.min, completion.min), max: prompt.max === null || completion.max === null ? null : priceOf(prompt.max, completion.max) }
        : null;
      const mean = earlier?.get(`${model.label}\u0000${condition.name}`);
      const reasons = [...new Set([...(calls.unbounded ?? []), ...(prompt.unbounded ?? []), ...(completion.unbounded ?? [])])];
      cells.push({
        model: model.label,
        condition: condition.name,
        answers: n,
        generationCalls: rangeOf(calls),
        promptTokens: rangeOf(prompt),
        completionTokens: rangeOf(completion),
        basis,
        // Exact prompts are counted in the model's own tokens; bounds hold for the estimate they are proved with.
        ...(basis === 'exact' && model.tokenUnit !== ESTIMATE_UNIT ? { tokenUnit: model.tokenUnit } : {}),
        ...(reasons.length ? { unbounded: reasons } : {}),
        ...(mean
          ? {
              estimate: {
                from: options.earlier!.from,
                generationCalls: Math.round(mean.generationCalls * n),
                promptTokens: Math.round(mean.promptTokens * n),
                completionTokens: Math.round(mean.completionTokens * n),
                ...(model.price ? { price: priceOf(mean.promptTokens * n, mean.completionTokens * n) } : {}),
              },
            }
          : {}),
        judgeCalls: judgeCalls * samples,
        cachedCalls: once.cached,
        ...(images.max !== 0 ? { imageTokens: images } : {}),
        price,
        ...(price && batchDiscount !== undefined ? { batchPrice: scaleRange(price, batchDiscount) } : {}),
      });
    }
  }
  return { experiment: config.name, cells, total: planTotal(config, cells) };
}

/**
 * Calls, prompt tokens (page images among them) of one model answering every question under one
 * condition once, and its cached calls over all samples: exact for a one-prompt method (its prompt
 * built as the run builds it), else bounds from the calls the method declares.
 */
async function boundAnswers(stages: Stages, condition: Condition, model: StageModel, method: RagMethod, inputs: BoundInputs, retrieve: Retrieve): Promise<{ calls: Bound; prompt: Bound; images: Range; cached: number }> {
  const declared = method.calls;
  let calls: Bound = { min: 0, max: 0 };
  let prompt: Bound = { min: 0, max: 0 };
  let cached = 0;
  let images: Range = { min: 0, max: 0 };
  for (const item of stages.items) {
    if (declared?.external) {
      // An external system is not run at all (a dry run calls nothing): one request an answer, at the tokens it reports.
      calls = addBounds(calls, { min: declared.min, max: declared.max });
      prompt = addBounds(prompt, { min: 0, max: null, unbounded: [`${condition.strategyPath}: an external system reports its own tokens`] });
      continue;
    }
    if (declared?.singleShot) {
      const first = await firstPrompt(stages, condition, item, retrieve, model.countTokens);
      if (!first) throw new InputError(`${condition.name}: the plan could not build the prompt of question ${item.id}`);
      const counted = planPromptTokens(first, model.generator, model.countTokens);
      calls = addBounds(calls, { min: 1, max: 1 });
      prompt = addBounds(prompt, { min: counted.total, max: counted.total });
      images = sumRange([images, { min: counted.images, max: counted.images }]);
      // Each repeated sample has a cache key of its own: some may be cached, others not.
      for (let sample = 0; sample < model.samples; sample++) if (model.generator.isCached?.(first, { sample })) cached++;
      continue;
    }
    if (!method.planCalls) {
      calls = addBounds(calls, declared ? { min: declared.min, max: declared.max } : { min: 0, max: null, unbounded: [`method ${method.name} declares no calls`] });
      prompt = addBounds(prompt, { min: 0, max: null, unbounded: [`method ${method.name} declares no planCalls`] });
      continue;
    }
    const questionPassages = condition.usesRetrieval ? await retrieve(condition, item) : null;
    const answer = answerBounds(await method.planCalls({ item, k: passagesBound(condition), questionPassages }), inputs);
    calls = addBounds(calls, answer.calls);
    prompt = addBounds(prompt, answer.promptTokens);
  }
  return { calls, prompt, images, cached };
}

/** The whole grid: the cells summed, its price at the batch rate where batch models are in it, and its minutes at the tightest rate limit. */
function planTotal(config: ExperimentConfig, cells: PlanCell[]): RunPlan['total'] {
  const rpm = Math.min(...(config.models ?? []).map((m) => (m.rateLimit as { requestsPerMinute?: number } | undefined)?.requestsPerMinute ?? Infinity));
  const totalCalls = sumRange(cells.map((c) => c.generationCalls));
  const totalPrice = cells.every((c) => c.price) ? sumRange(cells.map((c) => c.price!)) : null;
  const reasons = [...new Set(cells.flatMap((c) => c.unbounded ?? []))];
  return {
    answers: cells.reduce((n, c) => n + c.answers, 0),
    generationCalls: totalCalls,
    promptTokens: sumRange(cells.map((c) => c.promptTokens)),
    completionTokens: sumRange(cells.map((c) => c.completionTokens)),
    ...(reasons.length ? { unbounded: reasons } : {}),
    judgeCalls: cells.reduce((n, c) => n + c.judgeCalls, 0),
    cachedCalls: cells.reduce((n, c) => n + c.cachedCalls, 0),
    ...(cells.some((c) => c.imageTokens) ? { imageTokens: sumRange(cells.map((c) => c.imageTokens ?? { min: 0, max: 0 })) } : {}),
    price: totalPrice,
    // With batch models in the grid: the whole run at their batch rate (and the live rate for the others).
    ...(totalPrice && cells.some((c) => c.batchPrice) ? { batchPrice: sumRange(cells.map((c) => c.batchPrice ?? c.price!)) } : {}),
    minutesAtRateLimit: Number.isFinite(rpm) ? (totalCalls.max ?? totalCalls.min) / rpm : null,
  };
}

/** The most passages one retrieval of the condition can return: its k, or as many as its budget can hold. */
const passagesBound = (condition: Condition) => (condition.contextTokens ? mostPassagesWithin(condition.contextTokens) : (condition.k ?? 0));

const rangeOf = (b: Bound): Range => ({ min: b.min, max: b.max });
const scaleBound = (b: Bound, factor: number): Bound => ({ ...b, min: b.min * factor, max: b.max === null ? null : b.max * factor });

type Retrieve = (condition: Condition, item: BenchmarkItem) => Promise<RetrievedChunk[]>;

/** Retrieval as the run does it: each retriever once per question at its deepest k (in batches where it can), cut per condition (or filled to its context budget). */
function retrievalMemo(stages: Stages, conditions: Condition[]): Retrieve {
  const deepest = new Map<string, number>();
  for (const c of conditions) if (c.retrieverLabel && c.usesRetrieval) deepest.set(c.retrieverLabel, Math.max(retrievalDepth(c), deepest.get(c.retrieverLabel) ?? 0));
  const lists = new Map<string, Promise<Map<string, RetrievedChunk[]>>>();
  const atDepth = new Map<string, Promise<RetrievedChunk[]>>();
  const rankedAt = async (label: string, item: BenchmarkItem, asked: number): Promise<RetrievedChunk[]> => {
    const retriever = stages.retriever(label);
    if (retriever.depthDependent || asked > deepest.get(label)!) {
      // Once per question and depth, as the run asks (not once per model).
      const key = `${label}|${asked}|${item.benchmark}:${item.id}`;
      let list = atDepth.get(key);
      if (!list) atDepth.set(key, (list = retriever.retrieve(stages.queryFor(item), asked)));
      return list;
    }
    let all = lists.get(label);
    if (!all) {
      const depth = deepest.get(label)!;
      all = (async () => {
        const queries = stages.items.map((i) => stages.queryFor(i));
        const found = retriever.retrieveBatch ? await retriever.retrieveBatch(queries, depth) : await Promise.all(queries.map((q) => retriever.retrieve(q, depth)));
        return new Map(stages.items.map((i, n) => [`${i.benchmark}:${i.id}`, found[n]!]));
      })();
      lists.set(label, all);
    }
    return (await all).get(`${item.benchmark}:${item.id}`)!;
  };
  return async (condition, item) => {
    const label = condition.retrieverLabel!;
    if (condition.contextTokens) return retrieveWithinBudget((depth) => rankedAt(label, item, depth), condition.contextTokens);
    return (await rankedAt(label, item, condition.k!)).slice(0, condition.k!);
  };
}

/** A condition's chunking and context before the run: the corpus of its retrieved chunks and their mean tokens per question. */
export interface PlannedContext {
  corpus?: string;
  tokens: number;
}

/** Each retrieving condition's planned context: the corpus of its chunks and their mean tokens per question. */
export async function plannedContexts(stages: Stages, conditions: Condition[]): Promise<Map<string, PlannedContext>> {
  const retrieve = retrievalMemo(stages, conditions);
  const out = new Map<string, PlannedContext>();
  for (const condition of conditions) {
    if (!condition.usesRetrieval || !condition.retrieverLabel) continue;
    const ids: string[] = [];
    let tokens = 0;
    for (const item of stages.items) {
      for (const chunk of await retrieve(condition, item)) {
        tokens += estimateTokens(chunk.text);
        ids.push(chunk.id);
      }
    }
    const corpus = corpusOfChunks(ids);
    out.set(condition.name, { tokens: tokens / Math.max(1, stages.items.length), ...(corpus ? { corpus } : {}) });
  }
  return out;
}

/** The prompt of the condition's first model call for the item, built by the method itself and caught before it is sent. */
async function firstPrompt(stages: Stages, condition: Condition, item: BenchmarkItem, retrieve: Retrieve, countTokens: TokenCounter): Promise<ChatMessage[] | undefined> {
  const method = stages.method(condition.strategy, condition.strategyPath);
  const retriever = condition.usesRetrieval ? stages.retriever(condition.retrieverLabel!) : undefined;
  const context: MethodContext = {
    item,
    k: retrievalDepth(condition),
    retrieve: (query) => (query === item.question || !retriever ? retrieve(condition, item) : otherQuery(retriever, condition, { ...stages.queryFor(item), text: query })),
    generate: async (_label, messages) => {
      throw new PromptCaught(messages);
    },
    complete: async (_label, prompt) => {
      throw new PromptCaught([{ role: 'user', content: prompt }]);
    },
    chatTurn: async (_label, messages) => {
      const role = (type: string): ChatMessage['role'] => (type === 'system' ? 'system' : type === 'ai' ? 'assistant' : 'user');
      throw new PromptCaught(messages.map((m) => ({ role: role(m.getType()), content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) })));
    },
    relevance: async (query, texts) => {
      if (!retriever?.relevance) throw new InputError(`${condition.name}: its retriever cannot score sentences`);
      return retriever.relevance(query, texts);
    },
    record: () => {},
    countTokens,
  };
  try {
    await method.run(context);
  } catch (error) {
    if (error instanceof PromptCaught) return error.messages;
    // A method that cannot get as far as a prompt without a model (an external system) plans none.
    return undefined;
  }
  return undefined;
}

/** Means per answer of an earlier run's cost, by model and condition. */
const earlierMeans = (run: EarlierRun) => new Map(run.summary.cells.flatMap((cell) => (cell.cost ? [[`${cell.model}\u0000${cell.condition}`, cell.cost] as const] : [])));
