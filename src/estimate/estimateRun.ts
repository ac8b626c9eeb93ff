import type { BenchmarkItem } from '../benchmarks/types.js';
import type { ExperimentConfig } from '../config/experiment.js';
import { InputError, InterruptedError } from '../errors.js';
import { planConditions, type Condition } from '../experiment/plan.js';
import { prepareArtefacts } from '../experiment/prepare.js';
import { buildStages, type Stages } from '../experiment/stages.js';
import type { MethodContext } from '../methods/types.js';
import { estimateTokens } from '../prompting/tokenCounter.js';
import type { ChatMessage } from '../prompting/types.js';
import { messageTokens, promptImages } from '../prompting/messageContent.js';
import { imageCounterOf } from '../generation/imageTokens.js';
import type { Generator } from '../generation/types.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { loadRun } from '../results/loadRun.js';
import type { PlanCell, Range, RunPlan } from './runPlan.js';

export { PlanCellSchema, RangeSchema, RunPlanSchema, type PlanCell, type Range, type RunPlan } from './runPlan.js';

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

/** Prompt tokens of a call as the run counts them: text by the estimate, each page image by the generator's formula (refused, before any call, by one that cannot see images). */
export function planPromptTokens(messages: ChatMessage[], generator: Generator): { total: number; images: number } {
  const countImage = imageCounterOf(generator, messages);
  const images = promptImages(messages).reduce((n, image) => n + countImage(image), 0);
  return { total: messages.reduce((n, m) => n + messageTokens(m, estimateTokens, () => 0), 0) + images, images };
}

/** What planning takes besides the stages: an earlier run's means (`--estimate-from`), and a stop signal. */
export interface PlanOptions {
  estimateFrom?: string;
  /** Checked between cells: a plan of a large grid (every prompt built) stops at the next cell. */
  signal?: AbortSignal;
}

/**
 * Plans a run before spending (`hisrag run --dry-run`): prepares the artefacts as a run would
 * (corpora and indexes, built with local models only), builds the stages and plans them (`planRun`).
 * No model is called.
 */
export async function estimateRun(config: ExperimentConfig, options: PlanOptions & { log?: (line: string) => void } = {}): Promise<RunPlan> {
  await prepareArtefacts(config, { log: options.log ?? (() => {}), progress: false });
  const stages = await buildStages(config);
  try {
    const conditions = planConditions(config, (spec, path) => stages.method(spec, path));
    return await planRun(config, stages, conditions, options);
  } finally {
    await stages.close();
  }
}

/**
 * The plan of a grid on stages already built (the dry run's, or the runner's at run start, so that
 * nothing is prepared or built twice): retrieves for every question, and for every one-prompt
 * condition builds each prompt exactly as the run will — its calls and prompt tokens are exact, and
 * the response cache says which are free (a lookup). Multi-step methods get the bounds their
 * parameters give (`RagMethod.calls`), their tokens scaled from the first prompt they build, or the
 * means of an earlier run of the same grid (`estimateFrom`). A model whose generator describes
 * itself with `batch: true` gets its price at the batch rate too (`batchPrice`). No model is called.
 */
export async function planRun(config: ExperimentConfig, stages: Stages, conditions: Condition[], options: PlanOptions = {}): Promise<RunPlan> {
  const earlier = options.estimateFrom ? await earlierMeans(options.estimateFrom) : undefined;
  const retrieve = retrievalMemo(stages, conditions);
  const judgeCallsPerItem = (item: BenchmarkItem) =>
    (config.judge?.name === 'llm' && item.kind === 'rubric' ? 1 : 0) + (config.extractor?.name === 'llm' && item.kind === 'longhisdoc' ? 1 : 0);
  const judgeCalls = stages.items.reduce((sum, item) => sum + judgeCallsPerItem(item), 0);
  const cells: PlanCell[] = [];
  for (const model of stages.models) {
    const described = model.generator.describe();
    const maxTokens = typeof described.maxTokens === 'number' ? described.maxTokens : undefined;
    // A generator that answers through a batch API says so (`batch: true`): its calls cost the batch rate.
    const batchDiscount = described.batch === true && model.price ? model.price.batchDiscount : undefined;
    for (const condition of conditions) {
      if (options.signal?.aborted) throw new InterruptedError('interrupted while planning the run');
      const method = stages.method(condition.strategy, condition.strategyPath);
      const bounds = method.calls;
      let calls: Range = { min: 0, max: 0 };
      let prompt: Range = { min: 0, max: 0 };
      let cached = 0;
      let images: Range = { min: 0, max: 0 };
      for (const item of stages.items) {
        // A method that calls no model of the run (an external system) is not run at all: a dry run calls nothing.
        const first = bounds?.max === 0 ? undefined : await firstPrompt(stages, condition, item, retrieve);
        const counted = first ? planPromptTokens(first, model.generator) : { total: 0, images: 0 };
        const tokens = counted.total;
        if (bounds?.singleShot && first) {
          calls = sumRange([calls, { min: 1, max: 1 }]);
          prompt = sumRange([prompt, { min: tokens, max: tokens }]);
          images = sumRange([images, { min: counted.images, max: counted.images }]);
          if (model.generator.isCached?.(first)) cached++;
        } else {
          const b = bounds ?? { min: 0, max: Number.NaN };
          // Each later call re-reads at least the first prompt's material (the question, the passages).
          calls = sumRange([calls, { min: b.min, max: Number.isNaN(b.max) ? null : b.max }]);
          prompt = sumRange([prompt, { min: b.min * tokens, max: Number.isNaN(b.max) ? null : b.max * tokens }]);
          images = sumRange([images, { min: b.min * counted.images, max: Number.isNaN(b.max) ? null : b.max * counted.images }]);
        }
      }
      const n = stages.items.length;
      let basis: PlanCell['basis'] = bounds?.singleShot ? 'exact' : 'bounds';
      const mean = earlier?.get(`${model.label}\u0000${condition.name}`);
      if (mean && basis !== 'exact') {
        basis = 'earlier-run';
        calls = { min: Math.round(mean.generationCalls * n), max: Math.round(mean.generationCalls * n) };
        prompt = { min: Math.round(mean.promptTokens * n), max: Math.round(mean.promptTokens * n) };
      }
      const completion: Range = mean
        ? { min: Math.round(mean.completionTokens * n), max: Math.round(mean.completionTokens * n) }
        : { min: 0, max: maxTokens !== undefined && calls.max !== null ? calls.max * maxTokens : null };
      const price = model.price
        ? {
            min: (prompt.min * model.price.inputPerMillion + completion.min * model.price.outputPerMillion) / 1e6,
            max: prompt.max === null || completion.max === null ? null : (prompt.max * model.price.inputPerMillion + completion.max * model.price.outputPerMillion) / 1e6,
          }
        : null;
      cells.push({
        model: model.label,
        condition: condition.name,
        answers: n,
        generationCalls: calls,
        promptTokens: prompt,
        completionTokens: completion,
        basis,
        judgeCalls,
        cachedCalls: cached,
        ...(images.max !== 0 ? { imageTokens: images } : {}),
        price,
        ...(price && batchDiscount !== undefined ? { batchPrice: scaleRange(price, batchDiscount) } : {}),
      });
    }
  }
  const rpm = Math.min(...config.models.map((m) => (m.rateLimit as { requestsPerMinute?: number } | undefined)?.requestsPerMinute ?? Infinity));
  const totalCalls = sumRange(cells.map((c) => c.generationCalls));
  const totalPrice = cells.every((c) => c.price) ? sumRange(cells.map((c) => c.price!)) : null;
  return {
    experiment: config.name,
    cells,
    total: {
      answers: cells.reduce((n, c) => n + c.answers, 0),
      generationCalls: totalCalls,
      promptTokens: sumRange(cells.map((c) => c.promptTokens)),
      completionTokens: sumRange(cells.map((c) => c.completionTokens)),
      judgeCalls: cells.reduce((n, c) => n + c.judgeCalls, 0),
      cachedCalls: cells.reduce((n, c) => n + c.cachedCalls, 0),
      ...(cells.some((c) => c.imageTokens) ? { imageTokens: sumRange(cells.map((c) => c.imageTokens ?? { min: 0, max: 0 })) } : {}),
      price: totalPrice,
      // With batch models in the grid: the whole run at their batch rate (and the live rate for the others).
      ...(totalPrice && cells.some((c) => c.batchPrice) ? { batchPrice: sumRange(cells.map((c) => c.batchPrice ?? c.price!)) } : {}),
      minutesAtRateLimit: Number.isFinite(rpm) ? (totalCalls.max ?? totalCalls.min) / rpm : null,
    },
  };
}

type Retrieve = (condition: Condition, item: BenchmarkItem) => Promise<RetrievedChunk[]>;

/** Retrieval as the run does it: each retriever once per question at its deepest k (in batches where it can), cut per condition. */
function retrievalMemo(stages: Stages, conditions: Condition[]): Retrieve {
  const deepest = new Map<string, number>();
  for (const c of conditions) if (c.retrieverLabel && c.k) deepest.set(c.retrieverLabel, Math.max(c.k, deepest.get(c.retrieverLabel) ?? 0));
  const lists = new Map<string, Promise<Map<string, RetrievedChunk[]>>>();
  const atDepth = new Map<string, Promise<RetrievedChunk[]>>();
  return async (condition, item) => {
    const label = condition.retrieverLabel!;
    const retriever = stages.retriever(label);
    if (retriever.depthDependent) {
      // Once per question and depth, as the run asks (not once per model).
      const key = `${label}|${condition.k}|${item.benchmark}:${item.id}`;
      let list = atDepth.get(key);
      if (!list) atDepth.set(key, (list = retriever.retrieve(stages.queryFor(item), condition.k!)));
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
    return (await all).get(`${item.benchmark}:${item.id}`)!.slice(0, condition.k!);
  };
}

/** The prompt of the condition's first model call for the item, built by the method itself and caught before it is sent. */
async function firstPrompt(stages: Stages, condition: Condition, item: BenchmarkItem, retrieve: Retrieve): Promise<ChatMessage[] | undefined> {
  const method = stages.method(condition.strategy, condition.strategyPath);
  const retriever = condition.usesRetrieval ? stages.retriever(condition.retrieverLabel!) : undefined;
  const context: MethodContext = {
    item,
    k: condition.k ?? 0,
    retrieve: (query) => (query === item.question || !retriever ? retrieve(condition, item) : retriever.retrieve({ ...stages.queryFor(item), text: query }, condition.k!)),
    generate: async (_label, messages) => {
      throw new PromptCaught(messages);
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
    countTokens: estimateTokens,
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
async function earlierMeans(runDir: string): Promise<Map<string, { generationCalls: number; promptTokens: number; completionTokens: number }>> {
  const run = await loadRun(runDir);
  const out = new Map<string, { generationCalls: number; promptTokens: number; completionTokens: number }>();
  for (const cell of run.summary.cells) {
    if (cell.cost) out.set(`${cell.model}\u0000${cell.condition}`, { generationCalls: cell.cost.generationCalls, promptTokens: cell.cost.promptTokens, completionTokens: cell.cost.completionTokens });
  }
  return out;
}
