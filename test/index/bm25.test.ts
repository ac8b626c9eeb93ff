import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../../src/runFiles/corpusFiles.js';
import { Bm25Searcher } from '../../src/index/bm25/bm25Index.js';
import { BIGRAM_PREFIX, tokenize } from '../../src/index/bm25/tokenizer.js';
import { buildIndex } from '../../src/index/buildIndex.js';
import { openIndex } from '../../src/index/openIndex.js';
import { writeTestCorpus } from './testCorpus.js';

const doc = (i: number, text: string): Chunk => ({ id: `c${i}`, docId: i < 2 ? 'first' : 'second', title: '', text, meta: {} });

describe('BM25', () => {
  let root: string;
  let out: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-bm25-'));
    const corpus = await writeTestCorpus(join(root, 'corpus'), [
      doc(0, 'apple banana apple'),
      doc(1, 'banana cherry'),
      doc(2, 'cherry cherry cherry durian'),
    ]);
    out = join(root, 'index');
    await buildIndex({
      corpusDir: corpus,
      out,
      retriever: 'bm25',
      bm25: { k1: 1.2, b: 0.75, bigrams: false, simplify: false },
      progress: { silent: true },
    });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('scores exactly as Okapi BM25 with Lucene idf, computed by hand', async () => {
    // N = 3, avgdl = (3 + 2 + 4) / 3 = 3, k1 = 1.2, b = 0.75.
    // idf(apple)  = ln(1 + (3 − 1 + 0.5) / (1 + 0.5)) = ln(2.6667) = 0.980829
    // idf(cherry) = ln(1 + (3 − 2 + 0.5) / (2 + 0.5)) = ln(1.6)    = 0.470004
    // c0: apple tf 2, |d| 3 → 0.980829 · 2 · 2.2 / (2 + 1.2 · (0.25 + 0.75 · 3/3)) = 1.348640
    // c2: cherry tf 3, |d| 4 → 0.470004 · 3 · 2.2 / (3 + 1.2 · (0.25 + 0.75 · 4/3)) = 0.689339
    // c1: cherry tf 1, |d| 2 → 0.470004 · 1 · 2.2 / (1 + 1.2 · (0.25 + 0.75 · 2/3)) = 0.544215
    const index = await openIndex(out);
    const hits = index.bm25().search('apple cherry apple', 10);
    expect(hits.map((h) => h.label)).toEqual([0, 2, 1]);
    expect(hits[0]!.score).toBeCloseTo(1.3486402228911236, 10);
    expect(hits[1]!.score).toBeCloseTo(0.6893386562270789, 10);
    expect(hits[2]!.score).toBeCloseTo(0.5442147286003255, 10);
    await index.close();
  });

  it('takes k1 and b at query time', async () => {
    const index = await openIndex(out);
    const searcher = new Bm25Searcher(index.store, { ...index.manifest.bm25!, k1: 2, b: 0 });
    // b = 0: no length normalisation; c2: 0.470004 · 3 · 3 / (3 + 2) = 0.846007.
    const c2 = searcher.search('cherry', 10).find((h) => h.label === 2)!;
    expect(c2.score).toBeCloseTo(Math.log(1.6) * 9 / 5, 10);
    await index.close();
  });

  it('restricts ranking to a scope while keeping corpus statistics', async () => {
    const index = await openIndex(out);
    const hits = index.bm25().search('cherry', 10, new Set([0, 1]));
    expect(hits.map((h) => h.label)).toEqual([1]);
    expect(hits[0]!.score).toBeCloseTo(0.5442147286003255, 10);
    await index.close();
  });

  it('returns nothing for a query sharing no term with the corpus', async () => {
    const index = await openIndex(out);
    expect(index.bm25().search('zebra', 10)).toEqual([]);
    await index.close();
  });

  it('tokenizes Chinese into jieba words, simplified, without punctuation, plus prefixed bigrams', () => {
    const terms = tokenize('秦始皇統一六國。', { bigrams: true, simplify: true, hmm: true });
    expect(terms).toContain('秦始皇');
    expect(terms).toContain('统一');
    expect(terms).not.toContain('。');
    expect(terms).toContain(`${BIGRAM_PREFIX}六国`);
    expect(tokenize('秦始皇統一', { bigrams: false, simplify: false, hmm: true })).toEqual(['秦始皇', '統一']);
  });
});
