import { describe, expect, it } from 'vitest';
import { computeAheadOfRun, withHandOff } from '../../src/retrieval/handOff.js';
import type { RetrievalQuery, RetrievedChunk, Retriever } from '../../src/retrieval/types.js';

/** A retriever that counts what it is asked (queries retrieved, sentence lists scored). */
function countingRetriever() {
  const counts = { retrieved: 0, batches: 0, scored: 0, closed: 0 };
  const list = (query: RetrievalQuery, k: number): RetrievedChunk[] =>
    Array.from({ length: k }, (_, i) => ({ id: `${query.text}#${i}`, docId: 'd', title: 't', text: query.text, score: 1 / (i + 1), rank: i + 1 }) as unknown as RetrievedChunk);
  const retriever: Retriever = {
    name: 'counting',
    async retrieve(query, k) {
      counts.retrieved++;
      return list(query, k);
    },
    async retrieveBatch(queries, k) {
      counts.batches++;
      counts.retrieved += queries.length;
      return queries.map((q) => list(q, k));
    },
    async relevance(_query, texts) {
      counts.scored++;
      return texts.map((t) => t.length);
    },
    describe: () => ({ name: 'counting' }),
    async close() {
      counts.closed++;
    },
  };
  return { retriever, counts };
}

const q = (text: string): RetrievalQuery => ({ text, itemId: `b:${text}` });

describe('withHandOff: what the plan computes ahead of the run is handed on, not computed twice', () => {
  it('passes everything through outside computeAheadOfRun', async () => {
    const { retriever, counts } = countingRetriever();
    const wrapped = withHandOff(retriever);
    expect(wrapped.name).toBe('counting');
    await wrapped.retrieve(q('a'), 3);
    await wrapped.retrieve(q('a'), 3);
    await wrapped.relevance!('a', ['x', 'yy']);
    expect(counts).toMatchObject({ retrieved: 2, scored: 1 });
    expect(wrapped.describe()).toEqual({ name: 'counting' });
    await wrapped.close();
    expect(counts.closed).toBe(1);
  });

  it('hands the run the lists and scores the plan asked for, as many times as it asked', async () => {
    const { retriever, counts } = countingRetriever();
    const wrapped = withHandOff(retriever);
    const ahead = await computeAheadOfRun([wrapped], async () => {
      const lists = await wrapped.retrieveBatch!([q('a'), q('b'), q('c')], 5);
      // The same sentences scored twice (two models, one condition): computed once, handed on twice.
      await wrapped.relevance!('a', ['s1', 's22']);
      await wrapped.relevance!('a', ['s1', 's22']);
      return lists;
    });
    expect(counts).toMatchObject({ batches: 1, retrieved: 3, scored: 1 });
    // The run asks in its own groups: what the plan holds is taken, the rest retrieved.
    const got = await wrapped.retrieveBatch!([q('b'), q('d'), q('a')], 5);
    expect(counts).toMatchObject({ batches: 2, retrieved: 4 });
    expect(got[0]).toBe(ahead[1]);
    expect(got[2]).toBe(ahead[0]);
    expect(got[1]![0]!.id).toBe('d#0');
    expect(await wrapped.retrieve(q('c'), 5)).toBe(ahead[2]);
    expect(counts.retrieved).toBe(4);
    // Taken once: a second request retrieves again; another depth is not the same list.
    await wrapped.retrieve(q('c'), 5);
    await wrapped.retrieve(q('a'), 10);
    expect(counts.retrieved).toBe(6);
    expect(await wrapped.relevance!('a', ['s1', 's22'])).toEqual([2, 3]);
    expect(await wrapped.relevance!('a', ['s1', 's22'])).toEqual([2, 3]);
    expect(counts.scored).toBe(1);
    await wrapped.relevance!('a', ['s1', 's22']);
    expect(counts.scored).toBe(2);
  });

  it('keeps nothing when the work ahead fails', async () => {
    const { retriever, counts } = countingRetriever();
    const wrapped = withHandOff(retriever);
    await expect(
      computeAheadOfRun([wrapped], async () => {
        await wrapped.retrieve(q('a'), 3);
        throw new Error('planning failed');
      }),
    ).rejects.toThrow('planning failed');
    await wrapped.retrieve(q('a'), 3);
    expect(counts.retrieved).toBe(2);
  });

  it('forwards only what the retriever has (the runner asks retrieveBatch, relevance, firstStage by presence)', () => {
    const bare = withHandOff({ name: 'bare', retrieve: async () => [], describe: () => ({ name: 'bare' }), close: async () => {} });
    expect(bare.retrieveBatch).toBeUndefined();
    expect(bare.relevance).toBeUndefined();
    expect(bare.firstStage).toBeUndefined();
    expect(bare.depthDependent).toBeUndefined();
  });
});
