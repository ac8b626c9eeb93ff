import type { ExperimentConfig } from '../config/experiment.js';
import { InputError, ServiceUnavailableError } from '../errors.js';
import type { MethodRun } from '../methods/methodRun.js';
import { withExternalCost } from '../methods/external/outcome.js';
import { MethodStepError } from '../methods/stepError.js';
import type { MethodOutcome } from '../methods/types.js';
import { recordedMessageOf } from '../prompting/messageContent.js';
import type { GoldSpan } from '../benchmarks/goldSpans.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { stripThink } from '../scoring/stripThink.js';
import { ESTIMATE_UNIT, estimateTokens, type TokenCounter } from '../text/tokenCounter.js';
import { itemGroups, methodRetrievalMetrics, recordedChunks } from './itemDetails.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import type { Stages } from './stages.js';
import type { Task, TaskContext } from './taskContext.js';

/** One task's record, and whether its failure stops the whole run. */
export interface TaskAnswer {
  record: RunItemRecord;
  /** A method step failed in a way every other item would too (a model without what the method needs). */
  stopsRun: boolean;
}

/**
 * Answers one task of the grid: runs its condition's method (a single-shot strategy is one), scores
 * the answer and assembles the record from what the method's traced steps did. A step that fails
 * after the endpoint's retries fails the item whole, its trace kept. Bad input and an endpoint that
 * is down are thrown; an item the user interrupted mid-method gives undefined (redone on resume).
 */
export async function answerTask(task: Task, stages: Stages, context: TaskContext, config: ExperimentConfig, userStopped: () => boolean): Promise<TaskAnswer | undefined> {
  const { condition } = task;
  const method = stages.method(condition.strategy, condition.strategyPath);
  const run = context.methodRunFor(task);
  let outcome: MethodOutcome | undefined;
  let error: string | undefined;
  let stopsRun = false;
  try {
    outcome = await method.run(run);
  } catch (e) {
    if (e instanceof InputError || e instanceof ServiceUnavailableError) throw e;
    if (userStopped()) return undefined;
    error = (e as Error).message;
    stopsRun = e instanceof MethodStepError && e.stopsRun;
  }
  const score = await scoreOutcome(task, stages, config, outcome, error);
  // Passages a method got from outside the retriever (an external system's contexts) count as retrieved.
  const retrieved = [...run.retrieved(), ...(outcome?.passages ?? [])];
  const goldSpans = task.condition.usesRetrieval ? stages.goldSpans(task.item, task.condition.retrieverLabel) : undefined;
  const retrievalMetrics = await retrievalMetricsOf(task, stages, run, outcome, retrieved, goldSpans);
  const cost = withExternalCost(run.cost(), outcome?.externalCost);
  const record: RunItemRecord = {
    ...baseRecord(task),
    prompt: (outcome?.prompt ?? []).map(recordedMessageOf),
    retrieved: recordedChunks(retrieved),
    contextIds: outcome?.contextIds ?? [],
    ...(condition.usesRetrieval && outcome
      ? { context: { ...contextUsed(outcome.contextIds, retrieved, task.model.countTokens), ...(task.model.tokenUnit !== ESTIMATE_UNIT ? { unit: task.model.tokenUnit } : {}) } }
      : {}),
    truncated: outcome?.truncated ?? 0,
    response: outcome ? recordedResponse(outcome) : null,
    score,
    ...(retrievalMetrics ? { retrievalMetrics } : {}),
    ...(goldSpans ? { goldSpans } : {}),
    ...(error ? { error } : {}),
    trace: run.trace,
    cost,
    ...(outcome?.notes ? { methodNotes: outcome.notes } : {}),
    durationMs: cost.durationMs,
  };
  return { record, stopsRun };
}

/** The answer's score; an empty answer is a failure under `scoring.emptyAnswer: failed`, a method that failed has none. */
async function scoreOutcome(task: Task, stages: Stages, config: ExperimentConfig, outcome: MethodOutcome | undefined, error: string | undefined): Promise<RunItemRecord['score']> {
  const { item } = task;
  if (!outcome) return { status: 'generation_failed', score: null, scoreRaw: null, metric: stages.metricFor(item), error };
  if (config.scoring.emptyAnswer === 'failed' && stripThink(outcome.answer).trim() === '') {
    const why = outcome.response.emptyAfterAttempts ? `the endpoint returned empty completions on all ${outcome.response.emptyAfterAttempts} attempts` : 'the model gave an empty answer';
    return { status: 'generation_failed', score: null, scoreRaw: null, metric: stages.metricFor(item), rule: 'empty-answer', error: `empty answer: ${why} (scoring.emptyAnswer: failed)` };
  }
  return stages.score(item, outcome.answer);
}

/** Recall and the like over what the method retrieved (and, for a reranked retriever, its first-stage list too). */
async function retrievalMetricsOf(task: Task, stages: Stages, run: MethodRun, outcome: MethodOutcome | undefined, retrieved: RetrievedChunk[], goldSpans: GoldSpan[] | undefined): Promise<RunItemRecord['retrievalMetrics']> {
  const { condition, item } = task;
  const retriever = condition.usesRetrieval ? stages.retriever(condition.retrieverLabel!) : undefined;
  // issue 14 (reranking): a reranked retriever also hands back its cached first-stage list, for recall@k before reranking.
  const firstStage = retriever && run.questionList ? await retriever.firstStage?.(stages.queryFor(item)) : undefined;
  if (!outcome || !(condition.usesRetrieval || outcome.passages !== undefined)) return undefined;
  return methodRetrievalMetrics(item, retrieved, outcome.contextIds, condition.k ?? retrieved.length, firstStage, goldSpans);
}

/** The chunks placed in the prompt and their texts' tokens, counted as the run counts its model's context lengths (its tokenizer, else the estimate). */
export function contextUsed(contextIds: readonly string[], retrieved: readonly RetrievedChunk[], counter: TokenCounter = estimateTokens): { chunks: number; tokens: number } {
  const byId = new Map(retrieved.map((chunk) => [chunk.id, chunk]));
  return { chunks: contextIds.length, tokens: contextIds.reduce((sum, id) => sum + counter(byId.get(id)?.text ?? ''), 0) };
}

function recordedResponse(outcome: MethodOutcome): NonNullable<RunItemRecord['response']> {
  const result = outcome.response;
  return {
    text: outcome.answer,
    raw: result.raw,
    ...(result.reasoning ? { reasoning: result.reasoning } : {}),
    ...(result.usage ? { usage: Object.fromEntries(Object.entries(result.usage).filter(([, v]) => typeof v === 'number')) as Record<string, number> } : {}),
    ...(result.cached ? { cached: true } : {}),
    ...(result.emptyAfterAttempts ? { emptyAfterAttempts: result.emptyAfterAttempts } : {}),
  };
}

/** The fields a record takes from its task: who answered what, under which condition. */
function baseRecord({ key, model, condition, item, sample }: Task) {
  return {
    key,
    ...(model.samples > 1 ? { sample } : {}),
    itemId: item.id,
    benchmark: item.benchmark,
    kind: item.kind,
    category: item.category,
    task: item.task,
    question: item.question,
    model: model.label,
    condition: condition.name,
    strategy: condition.strategyLabel,
    retriever: condition.retrieverLabel,
    k: condition.k,
    ...(condition.contextTokens ? { contextTokens: condition.contextTokens } : {}),
    groups: itemGroups(item),
    ...(item.evidencePages?.length ? { evidence: { ...(item.docId ? { docId: item.docId } : {}), pages: item.evidencePages } } : {}),
  };
}
