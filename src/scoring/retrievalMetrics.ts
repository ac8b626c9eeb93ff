export interface RetrievalMetrics {
  recall: number;
  precision: number;
  f1: number;
  /** AP@k = Σ over hits of (hits so far / rank) ÷ |gold| (DESIGN.md). */
  ap: number;
  /** Reciprocal rank of the first hit within k (0 when none). */
  mrr: number;
  /** Binary-relevance nDCG@k. */
  ndcg: number;
}

/**
 * Retrieval quality of one ranked list against the gold evidence (pages or chunk ids), cut at
 * k. Ids compare as strings, so page 11 and "11" are the same; repeated ids count once.
 * Precision divides by k (by the list length when it is shorter). Callers skip items without
 * gold evidence (LongHisDoc's unanswerable questions).
 */
export function retrievalMetrics(rankedIds: ReadonlyArray<string | number>, goldIds: ReadonlyArray<string | number>, k: number): RetrievalMetrics {
  const gold = new Set(goldIds.map(String));
  const seen = new Set<string>();
  const top = rankedIds.slice(0, k).map(String);
  if (gold.size === 0) return { recall: 0, precision: 0, f1: 0, ap: 0, mrr: 0, ndcg: 0 };
  let hits = 0;
  let apSum = 0;
  let mrr = 0;
  let dcg = 0;
  top.forEach((id, index) => {
    if (!gold.has(id) || seen.has(id)) return;
    seen.add(id);
    hits++;
    const rank = index + 1;
    apSum += hits / rank;
    if (mrr === 0) mrr = 1 / rank;
    dcg += 1 / Math.log2(rank + 1);
  });
  let idcg = 0;
  for (let rank = 1; rank <= Math.min(gold.size, k); rank++) idcg += 1 / Math.log2(rank + 1);
  const recall = hits / gold.size;
  const precision = top.length === 0 ? 0 : hits / Math.min(k, top.length);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { recall, precision, f1, ap: apSum / gold.size, mrr, ndcg: idcg === 0 ? 0 : dcg / idcg };
}
