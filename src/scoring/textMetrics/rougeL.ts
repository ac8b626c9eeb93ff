import { characterTokens } from './characters.js';

export interface PrfScore {
  precision: number;
  recall: number;
  f1: number;
}

/** Length of the longest common subsequence (two rolling rows: answers run to thousands of characters). */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const current = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) {
      current[j] = a[i - 1] === b[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, current[j - 1]!);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Character-level ROUGE-L (0–100): LCS precision over the hypothesis, recall over the
 * reference, F1. Hand-written: the npm ROUGE packages split on spaces.
 */
export function rougeL(hypothesis: string, reference: string): PrfScore {
  const hyp = characterTokens(hypothesis);
  const ref = characterTokens(reference);
  if (hyp.length === 0 || ref.length === 0) return { precision: 0, recall: 0, f1: 0 };
  const lcs = lcsLength(hyp, ref);
  const precision = lcs / hyp.length;
  const recall = lcs / ref.length;
  const f1 = lcs === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision: 100 * precision, recall: 100 * recall, f1: 100 * f1 };
}
