import { codePointLength, levenshtein } from '../../text/levenshtein.js';
import { simplifyForScoring } from './normalise.js';

/**
 * ANLS of one prediction against one gold string, after simplified-Chinese conversion of
 * both: 1 − Levenshtein / max(length); a value ≤ `threshold` (0.5) becomes 0.
 */
export function anls(prediction: string, gold: string, threshold = 0.5): number {
  const p = simplifyForScoring(prediction);
  const g = simplifyForScoring(gold);
  const length = Math.max(codePointLength(p), codePointLength(g));
  const value = length === 0 ? 1 : 1 - levenshtein(g, p) / length;
  return value <= threshold ? 0 : value;
}
