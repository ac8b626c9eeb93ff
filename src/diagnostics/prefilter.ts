import { contentKeys } from '../scoring/judges/lexical.js';
import { lexicalCoverage } from './claims/standIns.js';

/** Scores claims against passages for the prefilter: the retriever's own relevance, or lexical overlap. */
export interface PairScorer {
  /** `relevance` (the condition's retriever: its embedder, or BM25), `lexical`, or `hybrid` (lexical first, relevance between equals). */
  readonly kind: 'relevance' | 'lexical' | 'hybrid';
  /** One row per claim, one score per passage. */
  score(claims: string[], passages: string[]): Promise<number[][]>;
}

export function lexicalPairScorer(): PairScorer {
  return {
    kind: 'lexical',
    async score(claims, passages) {
      const keys = passages.map((text) => contentKeys(text));
      return claims.map((claim) => keys.map((k) => lexicalCoverage(claim, k)));
    },
  };
}

export function relevancePairScorer(relevance: (query: string, texts: string[]) => Promise<number[]>): PairScorer {
  return {
    kind: 'relevance',
    async score(claims, passages) {
      const rows: number[][] = [];
      for (const claim of claims) rows.push(passages.length ? await relevance(claim, passages) : []);
      return rows;
    },
  };
}

/**
 * Lexical coverage first (a passage must share a claim's names and dates to state it), relevance between
 * equals, asked only for the passages tied at the cut-off: embedding every pair would cost more than it saves.
 */
export function hybridPairScorer(relevance: (query: string, texts: string[]) => Promise<number[]>, top: number): PairScorer {
  const lexical = lexicalPairScorer();
  return {
    kind: 'hybrid',
    async score(claims, passages) {
      const coverage = await lexical.score(claims, passages);
      const out: number[][] = [];
      for (const [i, row] of coverage.entries()) {
        const ranked = [...row].filter((c) => c > 0).sort((a, b) => b - a);
        const cut = ranked[top - 1];
        const tied = cut !== undefined && ranked.filter((c) => c === cut).length > 1 ? row.flatMap((c, j) => (c === cut ? [j] : [])) : [];
        const scores = [...row];
        if (tied.length) {
          const rel = await relevance(claims[i]!, tied.map((j) => passages[j]!));
          const lo = Math.min(...rel);
          const span = Math.max(...rel) - lo || 1;
          // Coverage is a share of at most a few hundred keys (steps of ≥ 1e-3); relevance scaled to [0, 1e-4] only orders the tie.
          tied.forEach((j, t) => (scores[j] = cut! + 1e-4 * ((rel[t]! - lo) / span)));
        }
        out.push(scores);
      }
      return out;
    },
  };
}

/**
 * Each claim's passages: all (`none`: RAGChecker's all pairs) or its best `top` by the scorer; under lexical
 * or hybrid scoring a passage sharing nothing with the claim is never sent.
 */
export async function selectPairs(
  claims: string[],
  passages: string[],
  options: { mode: 'hybrid' | 'relevance' | 'lexical' | 'none'; top: number; scorer: PairScorer },
): Promise<number[][]> {
  if (options.mode === 'none' || passages.length <= options.top) {
    if (options.mode !== 'none' && options.scorer.kind !== 'relevance') {
      const scores = await options.scorer.score(claims, passages);
      return scores.map((row) => row.flatMap((s, j) => (s > 0 ? [j] : [])));
    }
    return claims.map(() => passages.map((_, j) => j));
  }
  const scores = await options.scorer.score(claims, passages);
  return scores.map((row) => {
    const order = row.map((s, j) => ({ s, j })).filter(({ s }) => options.scorer.kind === 'relevance' || s > 0);
    order.sort((a, b) => b.s - a.s || a.j - b.j);
    return order.slice(0, options.top).map(({ j }) => j).sort((a, b) => a - b);
  });
}
