import { contentKeys } from '../scoring/judges/lexical.js';
import { lexicalCoverage } from './claims/standIns.js';
import { groupBy } from './groupBy.js';
import type { ClaimLabel } from '../runFiles/diagnosis.js';

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

/** A passage a claim may be checked against, with the prefilter's score for the pair. */
export type Candidate = { passage: number; score: number };
/** One passage's labels: claim index → label, or the error of the call that should have labelled it. */
export type PassageLabels = Map<number, ClaimLabel | { error: string }>;
/** What was checked: per passage its labels, and each call's (passage, claims) in the order sent. */
export type Checked = { columns: Map<number, PassageLabels>; batches: [number, number[]][] };

/**
 * Each claim's candidates, best first: every non-empty passage (`none`: RAGChecker's all pairs) or its best
 * `top` by the scorer; under lexical or hybrid scoring a passage sharing nothing with the claim is never one.
 */
export async function rankCandidates(claims: string[], passages: string[], options: { mode: 'hybrid' | 'relevance' | 'lexical' | 'none'; top: number; scorer: PairScorer }): Promise<Candidate[][]> {
  const all = options.mode === 'none' || (passages.length <= options.top && options.scorer.kind === 'relevance');
  const scores = all ? claims.map(() => passages.map(() => 1)) : await options.scorer.score(claims, passages);
  return scores.map((row) => {
    const order = row.flatMap((score, passage) => (passages[passage] && (all || options.scorer.kind === 'relevance' || score > 0) ? [{ passage, score }] : []));
    return order.sort((a, b) => b.score - a.score || a.passage - b.passage).slice(0, all ? undefined : options.top);
  });
}

/**
 * After an entailment a claim's next candidate is still checked when it scores at least this share of the
 * entailing one: an overlapping or repeated passage, likely entailing it too, which context precision
 * and noise sensitivity count as a passage of its own.
 */
export const NEAR_BEST = 0.7;

/**
 * Checks claims against their candidates: all at once without `adaptive` (RAGChecker's all pairs), else round
 * by round, each claim against its next candidate until one entails it (then NEAR_BEST) or none is left. A
 * call costs the same for one claim as for `perCall`, so a passage's calls are filled up with the other
 * claims not yet checked against it, those ranking it among their candidates first: more labels, no more calls.
 */
export async function checkCandidates(candidates: Candidate[][], options: { perCall: number; adaptive: boolean }, check: (passage: number, claims: number[]) => Promise<PassageLabels>): Promise<Checked> {
  const checked: Checked = { columns: new Map(), batches: [] };
  const tried = new Set<string>();
  const send = async (passage: number, claims: number[]) => {
    claims.sort((a, b) => a - b).forEach((i) => tried.add(`${i}:${passage}`));
    checked.batches.push([passage, claims]);
    const labels = await check(passage, claims);
    checked.columns.set(passage, new Map([...(checked.columns.get(passage) ?? []), ...labels]));
  };
  const byPassage = (pairs: [number, number][]) => [...groupBy(pairs, ([j]) => j)].sort(([a], [b]) => a - b).map(([j, list]): [number, number[]] => [j, list.map(([, i]) => i)]);
  const next = (i: number) => candidates[i]!.find(({ passage }) => !tried.has(`${i}:${passage}`));
  const settled = (i: number) => {
    const entailing = candidates[i]!.filter(({ passage }) => checked.columns.get(passage)?.get(i) === 'entailment').map((c) => c.score);
    return entailing.length > 0 && (next(i)?.score ?? -Infinity) < NEAR_BEST * Math.min(...entailing);
  };
  for (;;) {
    const wanted = options.adaptive ? candidates.flatMap((_, i): [number, number][] => (settled(i) || !next(i) ? [] : [[next(i)!.passage, i]])) : candidates.flatMap((list, i) => list.map(({ passage }): [number, number] => [passage, i]));
    if (!wanted.length) return checked;
    for (const [j, claims] of byPassage(wanted)) {
      const rank = (i: number) => candidates[i]!.find((c) => c.passage === j)?.score ?? -Infinity;
      const others = candidates.map((_, i) => i).filter((i) => !claims.includes(i) && !tried.has(`${i}:${j}`)).sort((a, b) => rank(b) - rank(a) || a - b);
      await send(j, options.adaptive ? [...claims, ...others.slice(0, Math.ceil(claims.length / options.perCall) * options.perCall - claims.length)] : claims);
    }
    if (!options.adaptive) return checked;
  }
}
