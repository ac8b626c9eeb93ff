import { estimateTokens, type TokenCounter } from '../text/tokenCounter.js';
import type { RetrievedChunk } from './types.js';

/**
 * Depth as a context budget in tokens (`contextTokens: [500, 1000, 2000]`, counted by the reader's
 * tokenizer where its model entry names one, else by `estimateTokens`, as every context length of a run is). The ranking stops at the first chunk that would exceed the
 * budget, never skipping to a smaller one, so a larger budget's list extends a smaller one's as a
 * deeper k does; a best chunk over the budget alone is kept cut to it (no closed book by accident).
 */
export interface BudgetFill extends FittedPrefix<RetrievedChunk> {
  /** True when every chunk of the list fit: a longer list might fit more. */
  exhausted: boolean;
}

/** The prefix of a ranked list that fits a budget. */
export interface FittedPrefix<T> {
  kept: T[];
  /** Cost of the kept items (never above the budget). */
  tokens: number;
  /** True when the first item alone was over the budget and was cut to fit. */
  clipped: boolean;
}

export function fillTokenBudget(ranked: readonly RetrievedChunk[], budget: number, counter: TokenCounter = estimateTokens): BudgetFill {
  const clip = { text: (chunk: RetrievedChunk) => chunk.text, withText: (chunk: RetrievedChunk, text: string) => ({ ...chunk, text }) };
  const fit = fitPrefix(ranked, budget, (chunk) => counter(chunk.text), clip);
  return { ...fit, exhausted: !fit.clipped && fit.kept.length === ranked.length };
}

/**
 * The longest prefix of `items` whose costs (`cost(item, position)`, positions one-based) sum to at
 * most `budget`. With `clip`, a first item over the budget on its own is kept cut to the longest
 * prefix of its text that fits, so that a small budget never empties the list.
 */
export function fitPrefix<T>(
  items: readonly T[],
  budget: number,
  cost: (item: T, position: number) => number,
  clip?: { text: (item: T) => string; withText: (item: T, text: string) => T },
): FittedPrefix<T> {
  const kept: T[] = [];
  let tokens = 0;
  for (const item of items) {
    const next = cost(item, kept.length + 1);
    if (tokens + next > budget) break;
    kept.push(item);
    tokens += next;
  }
  if (kept.length > 0 || items.length === 0 || !clip) return { kept, tokens, clipped: false };
  const first = items[0]!;
  const text = clip.text(first);
  // Costs grow with the text's length, so bisect.
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (cost(clip.withText(first, text.slice(0, mid)), 1) <= budget) low = mid;
    else high = mid - 1;
  }
  if (low === 0) return { kept, tokens, clipped: false };
  const cut = clip.withText(first, text.slice(0, low));
  return { kept: [cut], tokens: cost(cut, 1), clipped: true };
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
export async function retrieveWithinBudget(
  retrieveAt: (depth: number) => Promise<RetrievedChunk[]>,
  budget: number,
  counter: TokenCounter = estimateTokens,
): Promise<RetrievedChunk[]> {
  let depth = candidateDepth(budget);
  for (;;) {
    const list = await retrieveAt(depth);
    const fill = fillTokenBudget(list, budget, counter);
    if (!fill.exhausted || list.length < depth || depth >= mostPassagesWithin(budget)) return fill.kept;
    depth *= 2;
  }
}
