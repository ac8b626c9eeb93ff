import { describe, expect, it } from 'vitest';
import { answerQueryFromParams, answerQueryToParams, compareQueryFromParams, compareQueryToParams, type CellView, type RunDetail } from '../../src/viewer/api.js';
import { chunkOf, compareResult, compareRows, decompositionOf, filterAnswerRows, haystackOf, pivotCells, type ScoreRow, type SearchableRow } from '../../src/viewer/queries.js';
import { pairedBootstrap } from '../../src/statistics/bootstrap.js';
import { twoStageBootstrap, type Reducer } from '../../src/statistics/samples.js';
import { seedFor } from '../../src/statistics/run.js';

/** Compare's statistics: a run's settings (not clustered) and a salt. */
const statistics = (resamples = 1000, seed = 0, reducer: Reducer = 'mean') => ({ settings: { resamples, seed, confidence: 0.95, reducer, cluster: null }, salt: 'm|b|paired|a', summarized: null });

const score = (itemKey: string, value: number | null, extra: Partial<ScoreRow> = {}): ScoreRow => ({
  key: `m|c|${itemKey}`,
  itemKey,
  itemId: itemKey.split(':')[1]!,
  category: 'cat',
  question: `question ${itemKey}`,
  status: value === null ? 'generation_failed' : 'scored',
  score: value,
  ...extra,
});

describe('compareRows', () => {
  const a = [score('b:1', 10), score('b:2', 50), score('b:3', 30), score('b:4', null), score('b:5', 70)];
  const b = [score('b:1', 40), score('b:2', 20), score('b:3', 30), score('b:4', 90), score('b:6', 10)];

  it('pairs the items both scored and gives the paired bootstrap of B − A and the counts', () => {
    const result = compareRows(a, b, { statistics: statistics(500, 3) });
    expect(result.n).toBe(3);
    const expected = pairedBootstrap([40, 20, 30], [10, 50, 30], { resamples: 500, seed: seedFor(3, 'm|b|paired|a') });
    expect(result.meanDiff).toBeCloseTo(0);
    expect(result.ciLow).toBe(expected.ciLow);
    expect(result.ciHigh).toBe(expected.ciHigh);
    expect(result.counts).toEqual({ better: 1, worse: 1, same: 1 });
    // b:5 only scored in A; b:4 (failed in A) and b:6 (absent in A) only in B.
    expect(result.unpaired).toEqual({ a: 1, b: 2 });
  });

  it('lists the worse items worst first, the better best first, all by the size of the change', () => {
    expect(compareRows(a, b, { outcome: 'worse', statistics: statistics() }).items.rows.map((r) => [r.itemKey, r.diff])).toEqual([['b:2', -30]]);
    expect(compareRows(a, b, { outcome: 'better', statistics: statistics() }).items.rows.map((r) => r.itemKey)).toEqual(['b:1']);
    const all = compareRows(a, b, { outcome: 'all', limit: 2, statistics: statistics() });
    expect(all.items.total).toBe(3);
    expect(all.items.rows.map((r) => Math.abs(r.diff))).toEqual([30, 30]);
    expect(all.items.rows[0]!.keyA).toBe('m|c|b:1');
  });

  it('reduces an item\'s repeated samples to its score before pairing, and takes the two-stage bootstrap\'s CI (items, then samples)', () => {
    // Three items answered three times in B and twice in A (keys #1, #2 after the first sample).
    const sampled = (side: number[][]) => side.flatMap((scores, i) => scores.map((v, s) => score(`b:${i + 1}`, v, { key: `m|c|b:${i + 1}${s ? `#${s}` : ''}`, sample: s })));
    const sA = [[10, 30], [50, 50], [0, 20]];
    const sB = [[40, 20, 60], [20, 20, 50], [30, 30, 30]];
    const result = compareRows(sampled(sA), sampled(sB), { statistics: statistics(400, 5) });
    // Each item once: n is the items, not the 9 answers of B.
    expect(result.n).toBe(3);
    expect(result.samples).toEqual({ a: 2, b: 3, reducer: 'mean' });
    const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
    const diffs = sB.map((b, i) => mean(b) - mean(sA[i]!));
    expect(result.meanDiff).toBeCloseTo(mean(diffs), 10);
    const expected = twoStageBootstrap({ samples: sB, minus: sA, reducer: 'mean' }, { resamples: 400, seed: seedFor(5, 'm|b|paired|a') });
    expect([result.ciLow, result.ciHigh]).toEqual([expected.ciLow, expected.ciHigh]);
    expect(result.items.rows.map((r) => [r.itemKey, r.keyA, r.keyB, r.scoreA, r.scoreB])).toContainEqual(['b:3', 'm|c|b:3', 'm|c|b:3', 10, 30]);
    expect(result.counts).toEqual({ better: 2, worse: 1, same: 0 });
    // The run's reducer decides the item's score: max (best of n) here.
    const best = compareRows(sampled(sA), sampled(sB), { statistics: statistics(1000, 0, 'max') });
    expect(best.items.rows.find((r) => r.itemKey === 'b:1')).toMatchObject({ scoreA: 30, scoreB: 60, diff: 30 });
    // One answer an item: no samples note, and the plain paired bootstrap as before.
    expect(compareRows(a, b, { statistics: statistics() }).samples).toBeNull();
  });

  it('takes each side\'s cost from its cell\'s summary figures (none recorded: nulls), never from the rows', () => {
    const cost = { n: 4, retrievalCalls: 1, generationCalls: 2, promptTokens: 300, completionTokens: 50, durationMs: 12.5, price: 0.002, estimatedTokens: false };
    const cell = (condition: string, cellCost: typeof cost | null) => ({ model: 'm', condition, score: { mean: 1 }, scored: 4, items: 5, cost: cellCost }) as unknown as CellView;
    const detail = { cells: [cell('a', null), cell('b', cost)], bootstrap: { resamples: 100, seed: 0, confidence: 0.95 }, baseline: 'a', metric: 'x' } as unknown as RunDetail;
    const query = { a: { run: 'r', model: 'm', condition: 'a' }, b: { run: 'r', model: 'm', condition: 'b' } };
    const result = compareResult(query, detail, detail, a, b)!;
    expect(result.cost.b).toEqual({ n: 4, tokens: 350, price: 0.002, retrievalCalls: 1, generationCalls: 2, durationMs: 12.5 });
    expect(result.cost.a).toEqual({ n: 0, tokens: null, price: null, retrievalCalls: null, generationCalls: null, durationMs: null });
  });

  it('says nothing rather than NaN when no item is paired', () => {
    const result = compareRows([score('b:1', 1)], [score('b:2', 2)], { statistics: statistics() });
    expect(result).toMatchObject({ n: 0, meanDiff: null, ciLow: null, counts: { better: 0, worse: 0, same: 0 } });
  });
});

describe('filterAnswerRows (a bundle\'s queries, the semantics of the server\'s SQL)', () => {
  const row = (i: number, extra: Partial<SearchableRow> = {}): SearchableRow => ({
    key: `m|c|b:${i}`,
    itemKey: `b:${String(i).padStart(3, '0')}`,
    itemId: String(i),
    category: i % 2 ? '名词解释' : '简答题',
    question: `问题${i}`,
    answer: `答案${i}`,
    score: i * 10,
    status: 'scored',
    empty: false,
    tokens: 5,
    groups: { category: i % 2 ? '名词解释' : '简答题', dynasty: i < 5 ? '宋' : '明' },
    haystack: haystackOf(`问题${i}`, `答案${i} Alpha`, i === 3 ? '殿试由皇帝主持' : null),
    ...extra,
  });
  const rows = [row(1), row(2), row(3), row(4, { status: 'generation_failed', score: null }), row(5, { empty: true, score: 0 }), row(6)];
  const q = { run: 'r', model: 'm', condition: 'c' };

  it('filters by group, score range, status and empty answers', () => {
    expect(filterAnswerRows(rows, { ...q, group: 'dynasty=明' }).rows.map((r) => r.itemId)).toEqual(['5', '6']);
    expect(filterAnswerRows(rows, { ...q, scoreMin: 20, scoreMax: 30 }).rows.map((r) => r.itemId)).toEqual(['2', '3']);
    expect(filterAnswerRows(rows, { ...q, status: 'failed' }).rows.map((r) => r.itemId)).toEqual(['4']);
    expect(filterAnswerRows(rows, { ...q, status: 'empty' }).rows.map((r) => r.itemId)).toEqual(['5']);
    expect(filterAnswerRows(rows, { ...q, status: 'scored' }).total).toBe(5);
  });

  it('searches question, answer and reference, case-insensitively', () => {
    expect(filterAnswerRows(rows, { ...q, q: '皇帝' }).rows.map((r) => r.itemId)).toEqual(['3']);
    expect(filterAnswerRows(rows, { ...q, q: 'alpha' }).total).toBe(6);
    expect(filterAnswerRows(rows, { ...q, q: '问题6' }).rows.map((r) => r.itemId)).toEqual(['6']);
  });

  it('keeps only answers that differ from another condition, with its score', () => {
    const other = new Map(rows.map((r) => [r.itemKey, { score: r.itemId === '2' ? 99 : r.score, status: r.status }]));
    const page = filterAnswerRows(rows, { ...q, differsFrom: 'c2' }, other);
    expect(page.rows.map((r) => [r.itemId, r.otherScore])).toEqual([['2', 99]]);
  });

  it('sorts by score with failures last, and pages', () => {
    const page = filterAnswerRows(rows, { ...q, sort: '-score', offset: 1, limit: 2 });
    expect(page.total).toBe(6);
    expect(page.rows.map((r) => r.itemId)).toEqual(['3', '2']);
    expect(filterAnswerRows(rows, { ...q, sort: 'score' }).rows.map((r) => r.itemId).at(-1)).toBe('4');
    expect('haystack' in page.rows[0]!).toBe(false);
  });
});

describe('view state in the URL', () => {
  it('round-trips an answer query and a compare query through URL parameters', () => {
    const query = { run: 'r', model: 'm|1', condition: 'gold-first/rag@10', group: 'category=名词解释', scoreMin: 0, scoreMax: 50, status: 'failed' as const, differsFrom: 'closed-book', q: '殿试 &?#', sort: '-score' as const, offset: 0, limit: 100 };
    const { run, ...rest } = query;
    expect(answerQueryFromParams(run, new URLSearchParams(answerQueryToParams(rest).toString()))).toEqual(query);
    const compare = { a: { run: 'r1', model: 'm', condition: 'closed-book' }, b: { run: 'r2', model: 'm', condition: 'rag@100' }, outcome: 'worse' as const, offset: 0, limit: 100 };
    expect(compareQueryFromParams(new URLSearchParams(compareQueryToParams(compare).toString()))).toEqual(compare);
    expect(compareQueryFromParams(new URLSearchParams('ar=x'))).toBeNull();
  });
});

describe('pivotCells', () => {
  const cell = (model: string, strategy: string, k: number | null): CellView =>
    ({ model, condition: k === null ? strategy : `${strategy}@${k}`, strategy, retriever: k === null ? null : 'hnsw', k, score: { n: 1, mean: k ?? 0, ciLow: null, ciHigh: null }, paired: null }) as unknown as CellView;
  it('puts the conditions in a rows × columns table by two factors, k in numeric order', () => {
    const cells = [cell('a', 'closed-book', null), cell('a', 'rag', 100), cell('a', 'rag', 20), cell('b', 'rag', 20)];
    const pivot = pivotCells(cells, 'model', 'k');
    expect(pivot.rows).toEqual(['a', 'b']);
    expect(pivot.cols).toEqual(['–', '20', '100']);
    expect(pivot.cells[0]![2]!.map((c) => c.condition)).toEqual(['rag@100']);
    expect(pivot.cells[1]![0]).toEqual([]);
  });
});

describe('pivotCells by chunking × depth', () => {
  const cell = (corpus: string | undefined, k: number | null, contextTokens?: number): CellView =>
    ({ model: 'm', condition: corpus ? `${corpus}/rag@${k ?? `${contextTokens}tok`}` : 'closed-book', strategy: corpus ? 'rag' : 'closed-book', retriever: corpus ?? null, k, ...(contextTokens ? { contextTokens } : {}), ...(corpus ? { corpus } : {}), score: { n: 1, mean: 1, ciLow: null, ciHigh: null }, paired: null }) as unknown as CellView;
  it('puts corpora in rows and depths in columns: closed-book, then k, then budgets in tokens, each in numeric order', () => {
    const cells = [cell(undefined, null), cell('wiki-256', 20), cell('wiki-256', null, 2000), cell('wiki-1024', 5), cell('wiki-1024', null, 500), cell('wiki-256', 5)];
    const pivot = pivotCells(cells, 'corpus', 'k');
    expect(pivot.rows).toEqual(['(none)', 'wiki-256', 'wiki-1024']);
    expect(pivot.cols).toEqual(['–', '5', '20', '500tok', '2000tok']);
    expect(pivot.cells[1]![4]!.map((c) => c.condition)).toEqual(['wiki-256/rag@2000tok']);
    expect(pivot.cells[2]![3]!.map((c) => c.condition)).toEqual(['wiki-1024/rag@500tok']);
    expect(pivot.cells[2]![2]).toEqual([]);
  });
});

describe('small helpers', () => {
  it('spreads keys over a bundle\'s files and reads diagnostics defensively', () => {
    const counts = new Array(8).fill(0);
    for (let i = 0; i < 800; i++) counts[chunkOf(`m|c|b:${i}`, 8)]++;
    expect(Math.min(...counts)).toBeGreaterThan(50);
    expect(decompositionOf(undefined)).toBeNull();
    expect(decompositionOf({ decomposition: null })).toBeNull();
    expect(decompositionOf({ decomposition: { baseline: 'closed-book', delta: 10, n: 3, meanDiff: 1, helped: { n: 1, contribution: 5 }, hurt: { n: 1, contribution: -4 }, unchanged: { n: 1, contribution: 0 } } })?.hurt).toEqual({ n: 1, contribution: -4 });
  });
});
