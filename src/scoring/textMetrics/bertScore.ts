import type { PrfScore } from './rougeL.js';

/** Contextual vectors for each token of a text (special tokens excluded). */
export type TokenVectors = (text: string) => Promise<number[][]>;

function unit(vector: readonly number[]): number[] {
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector.map(() => 0) : vector.map((x) => x / norm);
}

function dot(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** Greedy matching (BERTScore): each token takes its most similar token on the other side. */
export function greedyMatch(candidate: number[][], reference: number[][]): PrfScore {
  if (candidate.length === 0 || reference.length === 0) return { precision: 0, recall: 0, f1: 0 };
  const c = candidate.map(unit);
  const r = reference.map(unit);
  const sims = c.map((cv) => r.map((rv) => dot(cv, rv)));
  const precision = sims.reduce((sum, row) => sum + Math.max(...row), 0) / c.length;
  const recall = r.reduce((sum, _, j) => sum + Math.max(...sims.map((row) => row[j]!)), 0) / r.length;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}

/**
 * BERTScore P/R/F1 (0–1, no idf weighting, no baseline rescaling) of a candidate against a
 * reference, over token vectors from the configured encoder.
 */
export async function bertScore(candidate: string, reference: string, tokenVectors: TokenVectors): Promise<PrfScore> {
  const [c, r] = await Promise.all([tokenVectors(candidate), tokenVectors(reference)]);
  return greedyMatch(c, r);
}
