import { formatContextHeader, type ContextEntry } from './contextBlock.js';
import type { TokenCounter } from '../text/tokenCounter.js';
import { fitPrefix, type FittedPrefix } from '../retrieval/tokenBudget.js';
import type { BuiltPrompt, ChatMessage } from './types.js';

export interface BudgetedEntries<T> extends FittedPrefix<T> {
  /** Entries dropped from the end of the list. */
  dropped: number;
}

/** Tokens an entry costs once formatted (header, text, separator). */
export function entryTokens(entry: ContextEntry, position: number, counter: TokenCounter): number {
  return counter(`${formatContextHeader(position, entry)}\n${entry.text.trim()}\n\n`);
}

/**
 * Keeps the longest prefix of `items` (best first: rank order, or page order) whose formatted
 * entries fit `budget` tokens; the rest is dropped, lowest-ranked first. When even the first
 * entry does not fit, its text is cut to fit, so a small budget never turns RAG into closed book.
 */
export function fitContextBudget<T>(
  items: T[],
  toEntry: (item: T) => ContextEntry,
  withText: (item: T, text: string) => T,
  budget: number | null,
  counter: TokenCounter,
): BudgetedEntries<T> {
  const cost = (item: T, position: number) => entryTokens(toEntry(item), position, counter);
  if (budget === null) {
    const tokens = items.reduce((sum, item, i) => sum + cost(item, i + 1), 0);
    return { kept: items, dropped: 0, tokens, clipped: false };
  }
  const fit = fitPrefix(items, budget, cost, { text: (item) => toEntry(item).text.trim(), withText });
  return { ...fit, dropped: items.length - fit.kept.length };
}

/** A built prompt with what the budget kept of its context (`contextTokens` where it counted text). */
export function builtPrompt(messages: ChatMessage[], contextIds: string[], fitted: BudgetedEntries<unknown>, countsTokens = true): BuiltPrompt {
  return {
    messages,
    contextIds,
    truncated: fitted.dropped,
    ...(countsTokens ? { contextTokens: fitted.tokens } : {}),
    ...(fitted.clipped ? { clipped: true } : {}),
  };
}
