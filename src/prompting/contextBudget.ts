import { formatContextHeader, type ContextEntry } from './contextBlock.js';
import type { TokenCounter } from '../text/tokenCounter.js';

export interface BudgetedEntries<T> {
  kept: T[];
  /** Entries dropped from the end of the list. */
  dropped: number;
  /** Tokens of the kept entries as formatted. */
  tokens: number;
  /** True when the first entry alone was over budget and its text was cut to fit. */
  clipped: boolean;
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
  const kept: T[] = [];
  let tokens = 0;
  for (const item of items) {
    const next = cost(item, kept.length + 1);
    if (tokens + next > budget) break;
    kept.push(item);
    tokens += next;
  }
  if (kept.length === 0 && items.length > 0) {
    const first = items[0]!;
    const text = toEntry(first).text.trim();
    // Longest prefix of the text that fits (token counts grow with length, so bisect).
    let low = 0;
    let high = text.length;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (cost(withText(first, text.slice(0, mid)), 1) <= budget) low = mid;
      else high = mid - 1;
    }
    if (low > 0) {
      const clipped = withText(first, text.slice(0, low));
      return { kept: [clipped], dropped: items.length - 1, tokens: cost(clipped, 1), clipped: true };
    }
  }
  return { kept, dropped: items.length - kept.length, tokens, clipped: false };
}
