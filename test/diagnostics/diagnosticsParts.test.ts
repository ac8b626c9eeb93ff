import { describe, expect, it } from 'vitest';
import type { BenchmarkItem } from '../../src/benchmarks/types.js';
import { sentenceClaims, createLexicalClaimChecker } from '../../src/diagnostics/claims/standIns.js';
import { decompose, outcomeOf, pairedItems } from '../../src/diagnostics/decomposition.js';
import { defaultDelta } from '../../src/scoring/metrics.js';
import { evidenceOf, goldRankBucket } from '../../src/diagnostics/evidence.js';
import { twoStageBootstrap } from '../../src/statistics/samples.js';
import { benchmarkGold, rubricItemClaim } from '../../src/diagnostics/goldClaims.js';
import { checkCandidates, hybridPairScorer, lexicalPairScorer, rankCandidates, relevancePairScorer, type Candidate, type PassageLabels } from '../../src/diagnostics/prefilter.js';

const item = (fields: Partial<BenchmarkItem>): BenchmarkItem => ({ id: 'q1', benchmark: 'b', kind: 'rubric', question: '问？', category: 'c', meta: {}, ...fields }) as BenchmarkItem;
const chunk = (id: string, rank: number, page?: number) => ({ id, rank, score: 1, title: 't', text: id, ...(page !== undefined ? { page } : {}) });

describe('help/hurt decomposition', () => {
  it('classifies by δ in both directions, the boundary included', () => {
    expect(outcomeOf(10, 10)).toBe('helped');
    expect(outcomeOf(-10, 10)).toBe('hurt');
    expect(outcomeOf(9.99, 10)).toBe('unchanged');
    expect(defaultDelta('rs')).toBe(10);
    // ROUGE-L is recorded on 0–100 (a perfect match scores 100), so its δ is on that scale too.
    expect(defaultDelta('rougeL')).toBe(10);
    expect(defaultDelta('accuracy')).toBe(10);
    expect(defaultDelta('bertScoreF1')).toBe(0.1);
  });

  it("gives a reference item's ROUGE-L a δ on the scale the scorer records it on", async () => {
    const { scoreItem } = await import('../../src/scoring/scoreItem.js');
    const { metricInfo } = await import('../../src/scoring/metrics.js');
    const perfect = await scoreItem(item({ kind: 'reference', referenceAnswer: '秦始皇统一六国' }), '秦始皇统一六国');
    expect(perfect.metric).toBe('rougeL');
    expect(perfect.score).toBe(metricInfo('rougeL').scale.max);
    expect(defaultDelta(perfect.metric)).toBe(perfect.score! / 10);
  });

  it('contributions add up to the mean difference exactly, whatever the mix', () => {
    const diffs = [40, -25, 3, -7, 100, -100, 0, 12.5, -10];
    const d = decompose(diffs.map((diff, i) => ({ itemKey: `b:${i}`, diff })), { baseline: 'closed-book', delta: 10 });
    expect(d.n).toBe(9);
    expect(d.helped.n).toBe(3);
    expect(d.hurt.n).toBe(3);
    expect(d.unchanged.n).toBe(3);
    expect(d.helped.contribution + d.hurt.contribution + d.unchanged.contribution).toBeCloseTo(d.meanDiff!, 12);
    expect(d.meanDiff).toBeCloseTo(diffs.reduce((a, b) => a + b, 0) / diffs.length, 12);
    expect(d.hurt.contribution).toBeCloseTo((-25 - 100 - 10) / 9, 12);
    expect(d.byEvidence).toBeNull();
  });

  it('splits items with gold by evidence status and best gold rank; items without gold stay out of the split', () => {
    const d = decompose(
      [
        { itemKey: 'a', diff: -50, evidence: { gold: ['x'], status: 'inPrompt', bestRank: 1 } },
        { itemKey: 'b', diff: -20, evidence: { gold: ['x'], status: 'retrievedNotInPrompt', bestRank: 37 } },
        { itemKey: 'c', diff: -30, evidence: { gold: ['x'], status: 'notRetrieved', bestRank: null } },
        { itemKey: 'd', diff: -40 },
        { itemKey: 'e', diff: 60, evidence: { gold: ['x'], status: 'inPrompt', bestRank: 4 } },
      ],
      { baseline: 'closed-book', delta: 10 },
    );
    expect(d.byEvidence!.hurt).toMatchObject({ inPrompt: { n: 1 }, retrievedNotInPrompt: { n: 1 }, notRetrieved: { n: 1 } });
    expect(d.byEvidence!.hurt!.inPrompt!.contribution).toBeCloseTo(-10, 12);
    expect(d.hurt.n).toBe(4);
    expect(d.byGoldRank!.hurt).toMatchObject({ '1': { n: 1 }, '21-50': { n: 1 }, 'not retrieved': { n: 1 } });
    expect(d.byGoldRank!.helped!['2-5']!.n).toBe(1);
  });

  it('pairs each item once with repeated samples: its samples reduced by the reducer, its evidence the first sample\'s', async () => {
    const { RunItemRecordSchema } = await import('../../src/runFiles/itemRecord.js');
    const answer = (condition: string, itemId: string, sample: number, score: number | null) =>
      RunItemRecordSchema.parse({
        key: `m|${condition}|b:${itemId}${sample ? `#${sample}` : ''}`, itemId, benchmark: 'b', kind: 'rubric', category: 'c', question: '问？', model: 'm', condition, strategy: 'rag',
        retriever: 'hnsw', k: 10, prompt: [], retrieved: [], contextIds: [], truncated: 0, response: { text: '答', raw: '' }, sample,
        score: score === null ? { status: 'generation_failed', score: null, scoreRaw: null, metric: 'rs' } : { status: 'scored', score, scoreRaw: score, metric: 'rs' }, groups: {}, durationMs: 1,
      });
    const rag = [answer('rag', 'q1', 0, 60), answer('rag', 'q1', 1, 20), answer('rag', 'q1', 2, 40), answer('rag', 'q2', 1, 10), answer('rag', 'q2', 0, 30), answer('rag', 'q2', 2, null)];
    const closed = [answer('cb', 'q1', 0, 10), answer('cb', 'q1', 1, 30), answer('cb', 'q2', 0, 50), answer('cb', 'q3', 0, 50)];
    const evidence = (r: { sample?: number }) => ({ gold: ['x'], status: 'inPrompt' as const, bestRank: (r.sample ?? 0) + 1 });
    const items = pairedItems(rag, closed, evidence);
    // q1: mean(60, 20, 40) − mean(10, 30) = 20; q2: mean(30, 10) (the failed sample left out) − 50 = −30; q3 only in the baseline.
    expect(items).toEqual([
      { itemKey: 'b:q1', diff: 20, evidence: { gold: ['x'], status: 'inPrompt', bestRank: 1 } },
      { itemKey: 'b:q2', diff: -30, evidence: { gold: ['x'], status: 'inPrompt', bestRank: 1 } },
    ]);
    expect(pairedItems(rag, closed, evidence, 'max').map((i) => i.diff)).toEqual([30, -20]);
    const d = decompose(items, { baseline: 'cb', delta: 10 });
    expect(d).toMatchObject({ n: 2, meanDiff: -5, helped: { n: 1 }, hurt: { n: 1 } });
  });

  it('claim metrics with repeated samples: a question\'s answers averaged first, n counts questions, the two-stage CI', async () => {
    const { RunItemRecordSchema } = await import('../../src/runFiles/itemRecord.js');
    const { metricMean } = await import('../../src/diagnostics/summary.js');
    const { summarizeScores } = await import('../../src/statistics/bootstrap.js');
    const answer = (itemId: string, sample: number, precision: number | null) => ({
      ...RunItemRecordSchema.parse({
        key: `m|rag|b:${itemId}${sample ? `#${sample}` : ''}`, itemId, benchmark: 'b', kind: 'rubric', category: 'c', question: '问？', model: 'm', condition: 'rag', strategy: 'rag',
        retriever: 'hnsw', k: 10, prompt: [], retrieved: [], contextIds: [], truncated: 0, response: { text: '答', raw: '' }, sample,
        score: { status: 'scored', score: 50, scoreRaw: 50, metric: 'rs' }, groups: {}, durationMs: 1,
      }),
      diagnostics: { metrics: { precision } } as never,
    });
    // q1 answered 3 times (0.2, 0.4, 0.6), q2 twice (1.0, and one whose check failed), q3 once.
    const sampled = [answer('q1', 0, 0.2), answer('q1', 1, 0.4), answer('q1', 2, 0.6), answer('q2', 0, 1), answer('q2', 1, null), answer('q3', 0, 0)];
    const m = metricMean(sampled, 'precision', 400, 9)!;
    expect(m.n).toBe(3);
    expect(m.failed).toBe(1);
    expect(m.mean).toBeCloseTo((40 + 100 + 0) / 3, 9);
    const expected = twoStageBootstrap({ samples: [[20, 40, 60], [100], [0]], reducer: 'mean' }, { resamples: 400, seed: 9 });
    expect([m.ciLow, m.ciHigh]).toEqual([expected.ciLow, expected.ciHigh]);
    // One answer a question: the plain bootstrap over answers, as before.
    const single = [answer('q1', 0, 0.2), answer('q2', 0, 1), answer('q3', 0, 0)];
    const plain = summarizeScores([20, 100, 0], { resamples: 400, seed: 9 });
    expect(metricMean(single, 'precision', 400, 9)).toEqual({ mean: plain.mean, ciLow: plain.ciLow, ciHigh: plain.ciHigh, n: 3, failed: 0 });
  });

  it('rank buckets follow the issue’s edges', () => {
    expect([1, 2, 5, 6, 10, 11, 20, 21, 50, 51, 100, 101, null].map(goldRankBucket)).toEqual(['1', '2-5', '2-5', '6-10', '6-10', '11-20', '11-20', '21-50', '21-50', '51-100', '51-100', '>100', 'not retrieved']);
  });
});

describe('gold claims from the benchmark', () => {
  it('a ProHist rubric’s bonus points are claims, without weights, tags or the grader’s verb; deductions are not', () => {
    const gold = benchmarkGold(item({ rubrics: '加分项：1、指出科举始于隋朝{+4}\n2、【关键】说明殿试由皇帝主持{+2}{+1}\n减分项：1、年号错误{-3}', referenceAnswer: '科举始于隋。' }));
    expect(gold).toEqual({ claims: ['科举始于隋朝', '殿试由皇帝主持'], from: 'rubric', answerText: '科举始于隋。' });
    expect(rubricItemClaim('能够明确指出：状元为殿试第一{+3}。')).toBe('状元为殿试第一');
  });

  it('a LongHisDoc answer’s elements are claims; an integer in two numeral forms is one claim; yes/no and unanswerable have none', () => {
    expect(benchmarkGold(item({ kind: 'longhisdoc', answerType: 'List', answer: ['甲', '乙', '甲'] })).claims).toEqual(['甲', '乙']);
    expect(benchmarkGold(item({ kind: 'longhisdoc', answerType: 'Int', answer: ['2', '二'] })).claims).toEqual(['二']);
    expect(benchmarkGold(item({ kind: 'longhisdoc', answerType: 'Str', answer: '千字文' }))).toMatchObject({ claims: ['千字文'], from: 'answer', answerText: '千字文' });
    expect(benchmarkGold(item({ kind: 'longhisdoc', answerType: 'Bool', answer: '是' })).from).toBe('none');
    expect(benchmarkGold(item({ kind: 'longhisdoc', answerType: 'None', answer: '无法回答' })).claims).toEqual([]);
  });

  it('other items get claims extracted from their reference answer', () => {
    expect(benchmarkGold(item({ kind: 'reference', referenceAnswer: '答案。' }))).toEqual({ claims: null, from: 'extracted', answerText: '答案。' });
  });
});

describe('evidence of an answer', () => {
  it('gold chunk ids: in the prompt, retrieved but cut, or not retrieved, with the best rank', () => {
    const gold = item({ goldChunkIds: ['g1', 'g2'] });
    const retrieved = [chunk('n1', 1), chunk('g2', 2), chunk('g1', 7)];
    expect(evidenceOf(gold, { retrieved, contextIds: ['n1', 'g1'] })).toEqual({ gold: ['g1', 'g2'], status: 'inPrompt', bestRank: 2 });
    expect(evidenceOf(gold, { retrieved, contextIds: ['n1'] })!.status).toBe('retrievedNotInPrompt');
    expect(evidenceOf(gold, { retrieved: [chunk('n1', 1)], contextIds: ['n1'] })).toEqual({ gold: ['g1', 'g2'], status: 'notRetrieved', bestRank: null });
    expect(evidenceOf(item({}), { retrieved, contextIds: [] })).toBeUndefined();
  });

  it('LongHisDoc pages match only chunks of the item’s own book', () => {
    const page = item({ kind: 'longhisdoc', docId: '900', evidencePages: [3] });
    const retrieved = [chunk('c:901-p3:0', 1, 3), chunk('c:900-p2:0', 2, 2), chunk('c:900-p3:0', 3, 3)];
    expect(evidenceOf(page, { retrieved, contextIds: retrieved.map((c) => c.id) })).toEqual({ gold: ['page:3'], status: 'inPrompt', bestRank: 3 });
  });
});

describe('offline stand-ins', () => {
  it('claims are sentences without numbering or end punctuation, duplicates and content-free pieces dropped', () => {
    expect(sentenceClaims('<think>想一想。</think>1、科举始于隋朝。殿试由皇帝主持！科举始于隋朝。……')).toEqual(['科举始于隋朝', '殿试由皇帝主持']);
  });

  it('the lexical checker entails by content overlap, never says contradiction, and refuses oversized calls', async () => {
    const checker = createLexicalClaimChecker({ claimsPerCall: 2 });
    const outcome = await checker.check({ claims: ['殿试由皇帝主持', '八股文始于明代'], text: '宋代以后，殿试由皇帝亲自主持。', question: '' });
    expect(outcome).toMatchObject({ ok: true, labels: ['entailment', 'neutral'] });
    await expect(checker.check({ claims: ['a', 'b', 'c'], text: '', question: '' })).rejects.toThrow(/at most 2/);
  });
});

describe('prefilter', () => {
  const passages = ['殿试由皇帝主持', '乡试于省城举行', '殿试与会试', '无关的文字'];
  const claims = ['殿试由皇帝主持', '会试在京城'];
  const selectPairs = async (...args: Parameters<typeof rankCandidates>) => (await rankCandidates(...args)).map((list) => list.map((c) => c.passage).sort((a, b) => a - b));

  it('none sends every pair (RAGChecker)', async () => {
    expect(await selectPairs(claims, passages, { mode: 'none', top: 1, scorer: lexicalPairScorer() })).toEqual([[0, 1, 2, 3], [0, 1, 2, 3]]);
  });

  it('lexical keeps each claim’s best passages and never a passage sharing no content with it', async () => {
    const selected = await selectPairs(claims, passages, { mode: 'lexical', top: 2, scorer: lexicalPairScorer() });
    expect(selected[0]).toEqual([0, 2]);
    expect(selected[1]).toEqual([2]);
  });

  it('relevance ranks by the retriever’s scores alone', async () => {
    const relevance = async (_q: string, texts: string[]) => texts.map((t) => (t === '无关的文字' ? 1 : 0));
    expect(await selectPairs(['x'], passages, { mode: 'relevance', top: 1, scorer: relevancePairScorer(relevance) })).toEqual([[3]]);
  });

  it('hybrid asks the retriever only to break a tie at the cut-off', async () => {
    const asked: string[][] = [];
    const relevance = async (_q: string, texts: string[]) => {
      asked.push(texts);
      return texts.map((t) => (t.includes('B') ? 1 : 0));
    };
    const tied = ['殿试A', '殿试B', '乡试'];
    expect(await selectPairs(['殿试'], tied, { mode: 'hybrid', top: 1, scorer: hybridPairScorer(relevance, 1) })).toEqual([[1]]);
    expect(asked).toEqual([['殿试A', '殿试B']]);
  });
});

describe('checking candidates adaptively', () => {
  // A checker over a fixed truth table: entailed[claim] lists the passages that entail it; calls are recorded.
  const checkerOf = (entailed: number[][]) => {
    const calls: [number, number[]][] = [];
    const check = async (passage: number, claims: number[]): Promise<PassageLabels> => {
      calls.push([passage, [...claims]]);
      return new Map(claims.map((i) => [i, entailed[i]!.includes(passage) ? 'entailment' : 'neutral']));
    };
    return { calls, check };
  };
  const ranked = (...pairs: [number, number][]): Candidate[] => pairs.map(([passage, score]) => ({ passage, score }));

  it('a claim its first candidate entails is checked once; one no candidate entails, against each of its candidates', async () => {
    // Claim 0: passages 4, 7, 9 (4 entails it); claim 1: passages 5, 6, 8 (none entails it). One claim a call.
    const { calls, check } = checkerOf([[4], []]);
    const candidates = [ranked([4, 0.9], [7, 0.5], [9, 0.4]), ranked([5, 0.8], [6, 0.6], [8, 0.3])];
    const checked = await checkCandidates(candidates, { perCall: 1, adaptive: true }, check);
    expect(calls).toEqual([[4, [0]], [5, [1]], [6, [1]], [8, [1]]]);
    expect(checked.batches).toEqual(calls);
    expect(checked.columns.get(4)?.get(0)).toBe('entailment');
    expect(checked.columns.has(7)).toBe(false);
  });

  it('after an entailment, a next candidate scoring at least NEAR_BEST of it is checked too', async () => {
    // 0.8 ≥ 0.7 × 0.9 = 0.63: passage 2 is checked; 0.5 < 0.7 × 0.8 = 0.56 (the lower entailing score): passage 3 is not.
    const { calls, check } = checkerOf([[1, 2]]);
    await checkCandidates([ranked([1, 0.9], [2, 0.8], [3, 0.5])], { perCall: 1, adaptive: true }, check);
    expect(calls).toEqual([[1, [0]], [2, [0]]]);
  });

  it('fills a call up to its size with the other claims, those ranking the passage first', async () => {
    // Round 1: claims 0 and 1 want passage 0; claim 2 wants passage 1. Calls of two claims: passage 0 is full,
    // passage 1 takes claim 1 (passage 1 is its candidate) before claim 0 (it is not).
    const { calls, check } = checkerOf([[0], [0], [1]]);
    const candidates = [ranked([0, 0.9]), ranked([0, 0.9], [1, 0.2]), ranked([1, 0.9])];
    await checkCandidates(candidates, { perCall: 2, adaptive: true }, check);
    expect(calls).toEqual([[0, [0, 1]], [1, [1, 2]]]);
  });

  it('without adaptive every candidate pair is checked, grouped by passage', async () => {
    const { calls, check } = checkerOf([[0], [1]]);
    await checkCandidates([ranked([0, 1], [1, 1]), ranked([1, 1], [0, 1])], { perCall: 5, adaptive: false }, check);
    expect(calls).toEqual([[0, [0, 1]], [1, [0, 1]]]);
  });
});

describe('diagnoses written by another version of the stage', () => {
  it('a record whose diagnostics do not parse reads as undiagnosed instead of refusing the run', async () => {
    const { RunItemRecordSchema } = await import('../../src/runFiles/itemRecord.js');
    const record = {
      key: 'm|rag@10|b:q1', itemId: 'q1', benchmark: 'b', kind: 'rubric', category: 'c', question: '问？', model: 'm', condition: 'rag@10', strategy: 'rag',
      retriever: 'hnsw', k: 10, prompt: [], retrieved: [], contextIds: [], truncated: 0, response: null,
      score: { status: 'generation_failed', score: null, scoreRaw: null, metric: 'rs' }, groups: {}, durationMs: 1,
      diagnostics: { responseClaims: [], diagnosticsCost: { checkerCalls: 1 } },
    };
    const parsed = RunItemRecordSchema.parse(record);
    expect(parsed.diagnostics).toBeUndefined();
    expect(parsed.key).toBe(record.key);
  });
});
