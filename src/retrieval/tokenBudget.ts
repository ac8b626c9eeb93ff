import { estimateTokens, type TokenCounter } from '../text/tokenCounter.js';
import type { RetrievedChunk } from './types.js';

/**
 * Depth as a context budget in tokens (`contextTokens: [500, 1000, 2000]`): the ranked list is
 * taken in rank order while the chunks' texts fit the budget, counted by the estimate every
 * context length of a run is counted with (`estimateTokens`: a CJK character or punctuation mark
 * is one token, other text one per four characters). One rule: **stop at the first chunk that
 * would exceed the budget** — a later, smaller chunk is never skipped to, so the kept list is
 * always a prefix of the ranking (a larger budget's list extends a smaller one's, as a deeper k
 * does) and the budget is filled to within that one chunk. When even the best chunk exceeds the
 * budget it is kept cut to the budget (the longest prefix of its text that fits), so a small
 * budget never turns retrieval into closed book.
 */
export interface BudgetFill {
  kept: RetrievedChunk[];
  /** Tokens of the kept chunks' texts (never above the budget). */
  tokens: number;
  /** True when every chunk of the list fit: a longer list might fit more. */
  exhausted: boolean;
  /** True when the best chunk alone was over the budget and was cut to fit. */
  clipped: boolean;
}

export function fillTokenBudget(ranked: readonly RetrievedChunk[], budget: number, counter: TokenCounter = estimateTokens): BudgetFill {
  const kept: RetrievedChunk[] = [];
  let tokens = 0;
  for (const chunk of ranked) {
    const cost = counter(chunk.text);
    if (tokens + cost > budget) break;
    kept.push(chunk);
    tokens += cost;
  }
  if (kept.length === 0 && ranked.length > 0) {
    const first = ranked[0]!;
    // Longest prefix of the text that fits (token counts grow with length, so bisect).
    let low = 0;
    let high = first.text.length;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (counter(first.text.slice(0, mid)) <= budget) low = mid;
      else high = mid - 1;
    }
    const text = first.text.slice(0, low);
    return { kept: low > 0 ? [{ ...first, text }] : [], tokens: counter(text), exhausted: false, clipped: low > 0 };
  }
  return { kept, tokens, exhausted: kept.length === ranked.length, clipped: false };
}

/** Candidates first asked for a budget: about one chunk per 50 tokens, at least 10; doubled while the budget is not filled. */
export const candidateDepth = (budget: number) => Math.max(10, Math.ceil(budget / 50));

/** The most passages a budget can hold (a non-empty chunk costs at least one token): what bounds a plan. */
export const mostPassagesWithin = (budget: number) => budget;

/**
 * Retrieves for a budget: asks `retrieveAt` for the candidate depth, and again at twice the depth
 * while every candidate fit and the retriever gave as many as asked (a ranking is prefix-consistent,
 * so the deeper list extends the shorter one).
 */
export async function retrieveWithinBudget(retrieveAt: (depth: number) => Promise<RetrievedChunk[]>, budget: number): Promise<RetrievedChunk[]> {
  let depth = candidateDepth(budget);
  for (;;) {
    const list = await retrieveAt(depth);
    const fill = fillTokenBudget(list, budget);
    if (!fill.exhausted || list.length < depth || depth >= mostPassagesWithin(budget)) return fill.kept;
    depth *= 2;
  }
}
