import pLimit from 'p-limit';
import type { BenchmarkItem } from '../benchmarks/types.js';
import type { ExperimentConfig } from '../config/experiment.js';
import { createProgress } from '../progress/progress.js';
import { MethodRun } from '../methods/methodRun.js';
import { estimateTokens, type TokenCounter } from '../text/tokenCounter.js';
import type { RetrievalQuery, RetrievedChunk, Retriever } from '../retrieval/types.js';
import { stripThink } from '../scoring/stripThink.js';
import { retrieveWithinBudget } from '../retrieval/tokenBudget.js';
import { retrievalDepth, type Condition } from './plan.js';
import type { Stages } from './stages.js';
import { forSample } from './sampledGenerator.js';

/** One answer of the grid: a model, a condition, a question. */
export interface Task {
  model: Stages['models'][number];
  condition: Condition;
  item: BenchmarkItem;
  /** Which of the model's repeated samples this answer is (0-based; 0 without `samples`). */
  sample: number;
  /** `model|condition|benchmark:id` (and `#sample` after sample 0), the record's key. */
  key: string;
}

export const itemKey = (item: BenchmarkItem) => `${item.benchmark}:${item.id}`;

/** A record's key: sample 0 keeps the key runs always had, so a run given more samples later reuses its first answers. */
export const recordKey = (model: string, condition: string, item: BenchmarkItem, sample = 0) => `${model}|${condition}|${itemKey(item)}${sample ? `#${sample}` : ''}`;

/** Questions per `retrieveBatch` call: large enough for one matrix product, small enough to start answering soon. */
const RETRIEVAL_BATCH = 64;

/** Every answer of the grid (models × conditions × questions × the model's samples) whose key is not in `skip`, in grid order. */
export function gridTasks(stages: Stages, conditions: Condition[], skip: Set<string> = new Set()): Task[] {
  const tasks: Task[] = [];
  for (const model of stages.models) {
    for (const condition of conditions) {
      for (const item of stages.items) {
        for (let sample = 0; sample < model.samples; sample++) {
          const key = recordKey(model.label, condition.name, item, sample);
          if (!skip.has(key)) tasks.push({ model, condition, item, sample, key });
        }
      }
    }
  }
  return tasks;
}

export interface TaskContext {
  /** The item's question at the condition's depth (a budget counted by `counter`, default the estimate), from the grid-wide batched and memoised retrieval. */
  retrieve(condition: Condition, item: BenchmarkItem, counter?: TokenCounter): Promise<RetrievedChunk[]>;
  /** One task's method context: its model, its depth, the memoised retrieval for the item's own question. */
  methodRunFor(task: Task): MethodRun;
}

/**
 * What every task of a grid shares: retrieval done once per question at each retriever's deepest k
 * (cut per condition), in batches for retrievers that take many queries at once, and the method
 * context each task runs in.
 */
export function createTaskContext(stages: Stages, conditions: Condition[], tasks: Task[], signal?: AbortSignal): TaskContext {
  const retrievalMemo = new Map<string, Promise<RetrievedChunk[]>>();
  const maxDepth = new Map<string, number>();
  for (const c of conditions) {
    if (c.retrieverLabel && c.usesRetrieval) maxDepth.set(c.retrieverLabel, Math.max(retrievalDepth(c), maxDepth.get(c.retrieverLabel) ?? 0));
  }
  // Retrievers that answer many queries at once (dense ones embed them in one batch, exact search
  // scores them in one matrix product) get the questions still to answer in groups of
  // RETRIEVAL_BATCH, in task order, each group fetched when its first question is reached.
  const batchOf = new Map<string, { items: BenchmarkItem[]; result?: Promise<RetrievedChunk[][]> }>();
  const filling = new Map<string, { items: BenchmarkItem[]; result?: Promise<RetrievedChunk[][]> }>();
  for (const task of tasks) {
    const label = task.condition.retrieverLabel;
    if (!label || !task.condition.usesRetrieval) continue;
    const retriever = stages.retriever(label);
    if (!retriever.retrieveBatch || retriever.depthDependent) continue;
    const key = `${label}|${itemKey(task.item)}`;
    if (batchOf.has(key)) continue;
    let batch = filling.get(label);
    if (!batch || batch.items.length >= RETRIEVAL_BATCH) filling.set(label, (batch = { items: [] }));
    batch.items.push(task.item);
    batchOf.set(key, batch);
  }
  /** The item's ranked list at `depth` or deeper (memoised; batched at the retriever's deepest depth). */
  const rankedAt = (condition: Condition, item: BenchmarkItem, asked: number): Promise<RetrievedChunk[]> => {
    const label = condition.retrieverLabel!;
    const retriever = stages.retriever(label);
    // Rankings are prefix-consistent for real retrievers: retrieve once at the deepest k and
    // cut. Control retrievers whose list depends on k (oracle+noise) are asked per depth.
    const depth = retriever.depthDependent ? asked : Math.max(asked, maxDepth.get(label)!);
    const memoKey = `${label}|${depth}|${itemKey(item)}`;
    let pending = retrievalMemo.get(memoKey);
    if (!pending) {
      const batch = depth === maxDepth.get(label) ? batchOf.get(`${label}|${itemKey(item)}`) : undefined;
      if (batch) {
        batch.result ??= retriever.retrieveBatch!(batch.items.map((i) => stages.queryFor(i)), depth);
        const position = batch.items.indexOf(item);
        pending = batch.result.then((lists) => lists[position]!);
      } else {
        pending = retriever.retrieve(stages.queryFor(item), depth);
      }
      retrievalMemo.set(memoKey, pending);
    }
    return pending;
  };
  const retrieve = (condition: Condition, item: BenchmarkItem, counter: TokenCounter = estimateTokens): Promise<RetrievedChunk[]> =>
    condition.contextTokens
      ? retrieveWithinBudget((depth) => rankedAt(condition, item, depth), condition.contextTokens, counter)
      : rankedAt(condition, item, condition.k!).then((list) => list.slice(0, condition.k!));
  const methodRunFor = (task: Task): MethodRun => {
    const { model, condition, item } = task;
    const retriever = condition.usesRetrieval ? stages.retriever(condition.retrieverLabel!) : undefined;
    return new MethodRun({
      item,
      k: retrievalDepth(condition),
      generator: forSample(model.generator, task.sample),
      countTokens: model.countTokens,
      signal,
      ...(model.price ? { price: model.price } : {}),
      ...(retriever
        ? {
            // The item's own question comes from the batched, memoised retrieval; other queries (a
            // reasoning step, a follow-up question) go to the retriever as they come.
            // Budgets in the reader's own tokens (its `tokenizer:`), else the estimate.
            retrieve: (text: string) =>
              text === item.question ? retrieve(condition, item, model.countTokens) : otherQuery(retriever, condition, { ...stages.queryFor(item), text }, model.countTokens),
            ...(retriever.relevance ? { relevance: (query: string, texts: string[]) => retriever.relevance!(query, texts) } : {}),
          }
        : {}),
    });
  };
  return { retrieve, methodRunFor };
}

/** A query other than the item's own question (a reasoning step, a follow-up), at the condition's depth or within its budget. */
export function otherQuery(retriever: Pick<Retriever, 'retrieve'>, condition: Condition, query: RetrievalQuery, counter: TokenCounter = estimateTokens): Promise<RetrievedChunk[]> {
  return condition.contextTokens ? retrieveWithinBudget((depth) => retriever.retrieve(query, depth), condition.contextTokens, counter) : retriever.retrieve(query, condition.k!);
}

/**
 * One batch round's collection (src/batch/): every task runs its method, then the shared scorer,
 * with the batch queues collecting — a call the cache cannot answer is queued and its task stops
 * there. Nothing is recorded; failures are met again, and recorded, by the run proper.
 */
export async function collectRound(options: { stages: Stages; config: ExperimentConfig; tasks: Task[]; context: TaskContext; label: string; progress: boolean }): Promise<void> {
  const { stages, config, tasks, context } = options;
  // Nothing waits on an endpoint here (cache lookups, retrieval): many tasks at once.
  const limit = pLimit(Math.max(32, config.execution.concurrency));
  const progress = createProgress({ label: options.label, total: tasks.length, silent: !options.progress });
  try {
    await Promise.all(
      tasks.map((task) =>
        limit(async () => {
          try {
            const outcome = await stages.method(task.condition.strategy, task.condition.strategyPath).run(context.methodRunFor(task));
            if (!(config.scoring.emptyAnswer === 'failed' && stripThink(outcome.answer).trim() === '')) await stages.score(task.item, outcome.answer);
          } catch {
            // A call waiting for this round's batch, or a failure the run proper meets again and records.
          } finally {
            progress.tick(1);
          }
        }),
      ),
    );
  } finally {
    progress.stop();
  }
}
