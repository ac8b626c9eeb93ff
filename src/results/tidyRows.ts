import type { RunItemRecord } from '../runFiles/itemRecord.js';
import type { LoadedRun } from './loadRun.js';
import { methodsByStrategy } from '../experiment/cellMethod.js';
import type { CellMethod } from '../runFiles/summary.js';
import { clusterKeyOf } from '../experiment/clusterKey.js';

function verdictCounts(verdicts: Record<string, 0 | 1> | undefined, prefix: string): [number | null, number | null] {
  if (!verdicts) return [null, null];
  const keys = Object.keys(verdicts).filter((k) => k.startsWith(prefix));
  return [keys.filter((k) => verdicts[k] === 1).length, keys.length];
}

export function tidyRow(run: string, r: RunItemRecord, method?: CellMethod, clusterKey?: ((record: RunItemRecord) => string) | null) {
  const [bonusHits, bonusItems] = verdictCounts(r.score.verdicts, '加分项');
  const [deductionHits, deductionItems] = verdictCounts(r.score.verdicts, '减分项');
  const m = r.retrievalMetrics ?? {};
  return {
    run,
    benchmark: r.benchmark,
    itemId: r.itemId,
    question: r.question,
    category: r.category,
    task: r.task ?? null,
    model: r.model,
    condition: r.condition,
    strategy: r.strategy,
    /** The method that produced the answer (`rag`, `ircot`, `http` …) and its entry's params: group or filter by them. */
    method: method?.name ?? null,
    methodParams: method?.params ?? null,
    retriever: r.retriever,
    /** Retrieval depth; null for closed-book conditions. */
    k: r.k,
    status: r.score.status,
    /** Score on 0–100; null when generation or judging failed. */
    score: r.score.status === 'scored' ? r.score.score : null,
    scoreRaw: r.score.status === 'scored' ? r.score.scoreRaw : null,
    metric: r.score.metric,
    /** Retrieval metrics at k (recall, precision, f1, ap, mrr, ndcg) when the item has gold evidence. */
    recall: m.recall ?? null,
    precision: m.precision ?? null,
    ap: m.ap ?? null,
    mrr: m.mrr ?? null,
    ndcg: m.ndcg ?? null,
    /** Reranked retrievers: the same metrics of the first-stage list cut at k (before reranking); null otherwise. */
    recallFirstStage: m['firstStage.recall'] ?? null,
    apFirstStage: m['firstStage.ap'] ?? null,
    mrrFirstStage: m['firstStage.mrr'] ?? null,
    ndcgFirstStage: m['firstStage.ndcg'] ?? null,
    /** True when the retriever reranked its candidates (the chunks carry first-stage ranks). */
    reranked: r.retrieved.some((c) => c.firstStage !== undefined),
    /** Reranked retrievers: the reranker could not rank this list and the first-stage order was kept. */
    rerankFallback: r.retrieved.some((c) => c.rerankFallback !== undefined),
    /** Rubric verdicts: hit counts per half (`加分项` bonus / `减分项` deduction). */
    bonusHits,
    bonusItems,
    deductionHits,
    deductionItems,
    /** Groups recorded for the item (task, dynasty, type, answer_type, evidence_modal ...). */
    groups: r.groups,
    /** Chunks placed in the prompt, and how many the context budget dropped. */
    contextChunks: r.contextIds.length,
    truncated: r.truncated,
    /** Token usage the endpoint reported for the final generation. */
    promptTokens: r.response?.usage?.promptTokens ?? null,
    completionTokens: r.response?.usage?.completionTokens ?? null,
    /** What the whole answer cost (every step of its method); null in runs from before methods. */
    retrievalCalls: r.cost?.retrievalCalls ?? null,
    generationCalls: r.cost?.generationCalls ?? null,
    /** Prompt and completion tokens over all steps: the endpoint's usage, or estimated (`tokensEstimated`). */
    tokensIn: r.cost?.promptTokens ?? null,
    tokensOut: r.cost?.completionTokens ?? null,
    tokensEstimated: r.cost?.estimatedTokens === true,
    durationMs: r.cost?.durationMs ?? r.durationMs,
    /** The answer's price when the model has a `price`. */
    price: r.cost?.price ?? null,
    /** Retrieval metrics of the passages that reached the final prompt, where a method placed fewer than it retrieved. */
    recallFinal: m['final.recall'] ?? null,
    /** Per-item method figures (adaptive: retrieved; ircot: steps …). */
    methodNotes: r.methodNotes ?? {},
    /** Which of the question's repeated samples this answer is (0: the first). */
    sample: r.sample ?? 0,
    /** The question's cluster key under the run's `scoring.cluster` (summary.json's `cluster`); null when the run is not clustered. */
    cluster: clusterKey ? clusterKey(r) : null,
  };
}

/** One answer as a flat row: easy to filter, group and plot. */
export type TidyRow = ReturnType<typeof tidyRow>;

/** Every answer of one or more runs as tidy rows, sorted by run, model, condition and item. */
export function tidyRows(runs: LoadedRun | LoadedRun[]): TidyRow[] {
  const list = Array.isArray(runs) ? runs : [runs];
  const rows: TidyRow[] = [];
  for (const run of list) {
    const methods = methodsByStrategy(run.config);
    const order = (r: RunItemRecord) => [run.models.indexOf(r.model), run.conditions.indexOf(r.condition)];
    const sorted = [...run.records].sort((a, b) => {
      const [am, ac] = order(a);
      const [bm, bc] = order(b);
      return am! - bm! || ac! - bc! || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
    });
    const clusterKey = run.summary.cluster ? clusterKeyOf(run.summary.cluster) : null;
    for (const r of sorted) rows.push(tidyRow(run.id, r, methods[r.strategy], clusterKey));
  }
  return rows;
}
