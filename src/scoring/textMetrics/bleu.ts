import { characterTokens } from './characters.js';

function ngramCounts(tokens: string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    const key = tokens.slice(i, i + n).join('\u0000');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * Sentence-level character BLEU-4 (0–100), as sacrebleu's `sentence_bleu` with its `char`
 * tokenizer (every non-space character a token; on ideographs and CJK punctuation alone the same as
 * its `zh` tokenizer, which keeps Latin and digit runs whole): clipped n-gram precisions for
 * n = 1..4, exponential smoothing of zero counts, effective order for hypotheses shorter than 4,
 * brevity penalty, and 0 when no character matches (sacrebleu's early stop). Checked against
 * sacrebleu's own output (test/golden/text-metrics.json). Hand-written: the npm BLEU packages
 * tokenise on spaces, which Chinese lacks.
 */
export function bleu4(hypothesis: string, reference: string): number {
  const hyp = characterTokens(hypothesis);
  const ref = characterTokens(reference);
  if (hyp.length === 0 || ref.length === 0) return 0;
  let logSum = 0;
  let order = 0;
  let smooth = 1;
  // No unigram in common means no n-gram in common: sacrebleu returns 0 rather than a smoothed score.
  if (!hyp.some((ch) => ref.includes(ch))) return 0;
  for (let n = 1; n <= 4; n++) {
    const total = hyp.length - n + 1;
    if (total <= 0) break; // effective order: only the orders the hypothesis can have
    const refCounts = ngramCounts(ref, n);
    let matched = 0;
    for (const [gram, count] of ngramCounts(hyp, n)) matched += Math.min(count, refCounts.get(gram) ?? 0);
    if (matched === 0) smooth *= 2; // exponential smoothing of a zero count
    logSum += Math.log(matched === 0 ? 1 / (smooth * total) : matched / total);
    order++;
  }
  const brevity = hyp.length >= ref.length ? 1 : Math.exp(1 - ref.length / hyp.length);
  return 100 * brevity * Math.exp(logSum / order);
}
