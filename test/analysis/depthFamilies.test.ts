import { describe, expect, it } from 'vitest';
import { corpusOfChunks, depthFamilyComparisons, type DepthPoint } from '../../src/analysis/depthFamilies.js';

const point = (condition: string, unit: DepthPoint['unit'], depth: number, corpus?: string, tokens?: number, retriever = corpus ?? 'r'): DepthPoint => ({
  model: 'm',
  condition,
  strategy: 'rag',
  retriever,
  unit,
  depth,
  ...(corpus ? { corpus } : {}),
  ...(tokens !== undefined ? { tokens } : {}),
});

describe('the depth and chunking families', () => {
  it('steps each depth against the next shallower one, k and budgets apart, in depth order whatever the input order', () => {
    const pairs = depthFamilyComparisons([point('rag@20', 'k', 20), point('rag@5', 'k', 5), point('rag@10', 'k', 10), point('rag@500tok', 'contextTokens', 500), point('rag@250tok', 'contextTokens', 250)]);
    expect(pairs.map((p) => `${p.kind}: ${p.condition} − ${p.reference}`)).toEqual(['depth: rag@10 − rag@5', 'depth: rag@20 − rag@10', 'depth: rag@500tok − rag@250tok']);
  });

  it('pairs chunkings at the same budget, and each k with the other corpus’s k nearest in context tokens, once each', () => {
    const points = [
      point('s/rag@5', 'k', 5, 'wiki-128', 600),
      point('s/rag@20', 'k', 20, 'wiki-128', 2400),
      point('l/rag@5', 'k', 5, 'wiki-512', 2500),
      point('l/rag@20', 'k', 20, 'wiki-512', 9800),
      point('s/rag@1000tok', 'contextTokens', 1000, 'wiki-128', 980),
      point('l/rag@1000tok', 'contextTokens', 1000, 'wiki-512', 900),
      point('l/rag@3000tok', 'contextTokens', 3000, 'wiki-512', 2900),
    ];
    const chunkings = depthFamilyComparisons(points).filter((p) => p.kind === 'chunking');
    // wiki-128 before wiki-512: B − A with B = wiki-512. A budget only the one corpus has is left unpaired.
    expect(chunkings.map((p) => `${p.condition} − ${p.reference}`)).toEqual(['l/rag@1000tok − s/rag@1000tok', 'l/rag@5 − s/rag@5', 'l/rag@5 − s/rag@20']);
  });

  it('compares a swept retriever only with itself across chunkings (never dense against BM25)', () => {
    const points = [
      point('dense·maxSize=128/rag@5', 'k', 5, 'wiki·maxSize=128', 600, 'dense·maxSize=128'),
      point('dense·maxSize=512/rag@5', 'k', 5, 'wiki·maxSize=512', 2400, 'dense·maxSize=512'),
      point('dense·maxSize=512/rag@1', 'k', 1, 'wiki·maxSize=512', 500, 'dense·maxSize=512'),
      point('bm25·maxSize=128/rag@5', 'k', 5, 'wiki·maxSize=128', 590, 'bm25·maxSize=128'),
      point('bm25·maxSize=512/rag@1', 'k', 1, 'wiki·maxSize=512', 610, 'bm25·maxSize=512'),
    ];
    const chunkings = depthFamilyComparisons(points).filter((p) => p.kind === 'chunking');
    expect(chunkings.map((p) => `${p.condition} − ${p.reference}`)).toEqual(['dense·maxSize=512/rag@1 − dense·maxSize=128/rag@5', 'bm25·maxSize=512/rag@1 − bm25·maxSize=128/rag@5']);
  });

  it('leaves out conditions whose corpus or context is unknown, and other models and strategies', () => {
    const points = [point('a@5', 'k', 5, 'c1', 100), point('b@5', 'k', 5, 'c2'), point('x@5', 'k', 5, undefined, 100, 'r3'), { ...point('m2@5', 'k', 5, 'c2', 100), model: 'other' }];
    expect(depthFamilyComparisons(points).filter((p) => p.kind === 'chunking')).toEqual([]);
  });

  it('names a run’s chunking by the corpus most of its chunks come from', () => {
    expect(corpusOfChunks(['wiki-256:d1:0', 'wiki-256:d2:3', 'other:d:1'])).toBe('wiki-256');
    expect(corpusOfChunks([])).toBeUndefined();
  });
});
