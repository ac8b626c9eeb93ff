import type { RubricItem, Verdicts } from '../types.js';
import { bonusTotal, verdictKey } from './parseRubric.js';
import { roundHalfEven } from './roundHalfEven.js';

export interface RubricScore {
  /** Per-item RS as the reference reports it: an integer, rounded half-to-even. */
  rs: number;
  /** The same before rounding. */
  rsRaw: number;
  /** Σ weights of hit items (deductions negative), before clipping. */
  earned: number;
  /** Σ bonus weights. */
  possible: number;
}

/**
 * RS = max(0, Σ weights of hit items) ÷ Σ bonus weights × 100. An item without a verdict
 * counts as not hit (callers decide beforehand whether a missing verdict is a failure). A
 * rubric without bonus weight scores 0, as in the reference.
 */
export function rubricScore(items: readonly RubricItem[], verdicts: Verdicts): RubricScore {
  let earned = 0;
  for (const item of items) if (verdicts[verdictKey(item)] === 1) earned += item.weight;
  const possible = bonusTotal(items);
  if (possible <= 0) return { rs: 0, rsRaw: 0, earned, possible };
  // Same operation order as the reference (earned × 100 / possible) so floats round alike.
  const rsRaw = (Math.max(0, earned) * 100) / possible;
  return { rs: roundHalfEven(rsRaw), rsRaw, earned, possible };
}

/** Keys of rubric items the verdicts do not mention. */
export function missingVerdicts(items: readonly RubricItem[], verdicts: Verdicts): string[] {
  return items.map(verdictKey).filter((key) => !(key in verdicts));
}
