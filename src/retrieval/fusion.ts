import type { RetrievedChunk } from './types.js';

/** The constant of reciprocal-rank fusion (Cormack, Clarke & Büttcher 2009). */
export const RRF_K = 60;

/**
 * Reciprocal-rank fusion: score(d) = Σ_i w_i / (c + rank_i(d)), summed over the lists that contain d
 * (ranks one-based). Ties keep the order of first appearance (list order, then rank).
 */
export function reciprocalRankFusion(lists: RetrievedChunk[][], weights: number[], c = RRF_K): Omit<RetrievedChunk, 'rank'>[] {
  return fuse(lists, (list, weight) => list.map((chunk) => weight / (c + chunk.rank)), weights);
}

/**
 * Weighted score fusion: each list's scores are min-max normalised to [0, 1] (a list whose scores are
 * all equal maps them to 1), then score(d) = Σ_i w_i · norm_i(d), a list missing d contributing 0.
 */
export function weightedScoreFusion(lists: RetrievedChunk[][], weights: number[]): Omit<RetrievedChunk, 'rank'>[] {
  return fuse(
    lists,
    (list, weight) => {
      const scores = list.map((chunk) => chunk.score);
      const min = Math.min(...scores);
      const max = Math.max(...scores);
      return scores.map((score) => weight * (max > min ? (score - min) / (max - min) : 1));
    },
    weights,
  );
}

function fuse(
  lists: RetrievedChunk[][],
  contributions: (list: RetrievedChunk[], weight: number) => number[],
  weights: number[],
): Omit<RetrievedChunk, 'rank'>[] {
  const fused = new Map<string, { chunk: RetrievedChunk; score: number; order: number }>();
  lists.forEach((list, i) => {
    const scores = contributions(list, weights[i] ?? 1);
    list.forEach((chunk, j) => {
      const entry = fused.get(chunk.id);
      if (entry) entry.score += scores[j]!;
      else fused.set(chunk.id, { chunk, score: scores[j]!, order: fused.size });
    });
  });
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ chunk: { rank: _rank, ...chunk }, score }) => ({ ...chunk, score }));
}
