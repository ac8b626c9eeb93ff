import { describe, expect, it } from 'vitest';
import { candidateDepth, fillTokenBudget, retrieveWithinBudget } from '../../src/retrieval/tokenBudget.js';
import type { RetrievedChunk } from '../../src/retrieval/types.js';
import { estimateTokens } from '../../src/text/tokenCounter.js';

const chunk = (rank: number, text: string): RetrievedChunk => ({ id: `c:d:${rank}`, docId: 'd', title: 't', text, meta: {}, score: 1 / rank, rank }) as RetrievedChunk;
const han = (n: number) => '史'.repeat(n);

describe('a context budget in tokens', () => {
  it('keeps chunks in rank order until the next would exceed, and never skips to a later smaller one', () => {
    const ranked = [chunk(1, han(40)), chunk(2, han(50)), chunk(3, han(30)), chunk(4, han(5))];
    const fill = fillTokenBudget(ranked, 100);
    expect(fill.kept.map((c) => c.rank)).toEqual([1, 2]);
    expect(fill.tokens).toBe(90);
    // Rank 3 (30 tokens) would exceed; rank 4 (5 tokens) would fit but is not skipped to.
    expect(fill.exhausted).toBe(false);
  });

  it('counts with the run estimate: a CJK character one token, other text one per four characters', () => {
    const fill = fillTokenBudget([chunk(1, `${han(10)}abcdefgh`), chunk(2, han(3))], 12);
    expect(fill.tokens).toBe(12);
    expect(fill.kept).toHaveLength(1);
    expect(estimateTokens(`${han(10)}abcdefgh`)).toBe(12);
  });

  it('cuts the best chunk to the budget when it alone is over it', () => {
    const fill = fillTokenBudget([chunk(1, han(80)), chunk(2, han(5))], 30);
    expect(fill.clipped).toBe(true);
    expect(fill.kept).toHaveLength(1);
    expect(fill.kept[0]!.text).toBe(han(30));
    expect(fill.tokens).toBe(30);
  });

  it('asks for deeper lists while every candidate fits, and stops when the retriever has no more', async () => {
    const corpus = Array.from({ length: 500 }, (_, i) => chunk(i + 1, han(2)));
    const asked: number[] = [];
    const kept = await retrieveWithinBudget(async (depth) => {
      asked.push(depth);
      return corpus.slice(0, depth);
    }, 700);
    expect(asked[0]).toBe(candidateDepth(700));
    expect(asked.length).toBeGreaterThan(1);
    expect(kept).toHaveLength(350);
    const short = await retrieveWithinBudget(async (depth) => corpus.slice(0, Math.min(depth, 7)), 700);
    expect(short).toHaveLength(7);
  });
});
