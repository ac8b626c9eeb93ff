import type { ScoringCompat } from '../compat.js';
import { stripThink } from '../stripThink.js';

/** Math delimiters the reference removes before looking for `\boxed{}`. */
function dropMathDelimiters(text: string): string {
  return text.replace(/\$/g, '').replace(/\\\(|\\\)|\\\[|\\\]/g, '');
}

/**
 * The option letters of the last `\boxed{…}` (`""` when there is none). By default the
 * letters are read from any box content (`\boxed{\text{A, C}}` → `AC`); with
 * `compat: 'reference'` only a box holding nothing but capital letters counts.
 */
export function extractBoxedLetters(response: string, options: { compat?: ScoringCompat } = {}): string {
  const text = dropMathDelimiters(stripThink(response));
  if (options.compat === 'reference') {
    const matches = [...text.matchAll(/\\boxed\{([A-Z]+)\}/g)];
    return matches.at(-1)?.[1] ?? '';
  }
  const matches = [...text.matchAll(/\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}/g)];
  const content = matches.at(-1)?.[1];
  if (content === undefined) return '';
  return content
    .replace(/\\[a-zA-Z]+/g, '')
    .toUpperCase()
    .replace(/[^A-Z]/g, '');
}

/** Exact option set → 100, non-empty strict subset of the gold set → 60, otherwise 0. */
export function scoreMcq(letters: string, gold: string, options: { compat?: ScoringCompat } = {}): 0 | 60 | 100 {
  const goldSet = new Set(options.compat === 'reference' ? gold : gold.toUpperCase().replace(/[^A-Z]/g, ''));
  const predicted = new Set(letters);
  const subset = [...predicted].every((letter) => goldSet.has(letter));
  if (subset && predicted.size === goldSet.size) return 100;
  if (subset && predicted.size > 0) return 60;
  return 0;
}
