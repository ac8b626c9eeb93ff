import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { retrievalMetrics } from '../../src/scoring/retrievalMetrics.js';

/** trec_eval's per-query figures on test/golden/trec/{qrels,run}.txt (scripts/golden/trec_eval.py). */
interface TrecCase {
  query: string;
  k: number;
  ranked: string[];
  gold: string[];
  mrr: number;
  precision: number;
  recall: number;
  ap: number;
  ndcg: number;
}
const golden = JSON.parse(readFileSync(new URL('../golden/trec-eval.json', import.meta.url), 'utf8')) as { version: string; cases: TrecCase[] };
// trec_eval prints four decimals.
const digits = 4;

describe(`retrieval metrics against ${golden.version}`, () => {
  it.each(golden.cases.map((c) => [`${c.query} @${c.k}`, c] as const))('%s', (_name, c) => {
    const m = retrievalMetrics(c.ranked, c.gold, c.k);
    expect(m.mrr).toBeCloseTo(c.mrr, digits);
    expect(m.recall).toBeCloseTo(c.recall, digits);
    expect(m.ap).toBeCloseTo(c.ap, digits);
    expect(m.ndcg).toBeCloseTo(c.ndcg, digits);
    // trec_eval's P.k divides by k even past the end of a short list; hisrag by the list's length.
    if (c.ranked.length >= c.k) expect(m.precision).toBeCloseTo(c.precision, digits);
    else expect(m.precision).toBeCloseTo((c.precision * c.k) / c.ranked.length, digits);
  });

  it('agrees with the formulas worked by hand on q1 at 10 (relevant at ranks 1, 4 and 7 of 10)', () => {
    const q1 = golden.cases.find((c) => c.query === 'q1' && c.k === 10)!;
    const m = retrievalMetrics(q1.ranked, q1.gold, 10);
    const dcg = 1 + 1 / Math.log2(5) + 1 / Math.log2(8);
    const ideal = 1 + 1 / Math.log2(3) + 1 / Math.log2(4);
    expect(m.ap).toBeCloseTo((1 / 1 + 2 / 4 + 3 / 7) / 3, 12);
    expect(m.ndcg).toBeCloseTo(dcg / ideal, 12);
    expect(m.mrr).toBe(1);
    expect(q1.ap).toBeCloseTo((1 / 1 + 2 / 4 + 3 / 7) / 3, digits);
    expect(q1.ndcg).toBeCloseTo(dcg / ideal, digits);
  });
});
