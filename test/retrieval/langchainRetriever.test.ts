import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Document } from '@langchain/core/documents';
import { BaseRetriever } from '@langchain/core/retrievers';
import { RunnableSequence } from '@langchain/core/runnables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HisragLangChainRetriever } from '../../src/retrieval/langchain/langchainRetriever.js';
import { createRetriever } from '../../src/retrieval/createRetriever.js';
import type { Retriever } from '../../src/retrieval/types.js';
import { writeTestCorpus } from '../index/testCorpus.js';
import { buildIndex } from '../../src/index/buildIndex.js';

describe('HisragLangChainRetriever', () => {
  let root: string;
  let bm25: Retriever;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-lc-'));
    const corpusDir = await writeTestCorpus(join(root, 'corpus'));
    await buildIndex({ corpusDir, out: join(root, 'bm25'), retriever: 'bm25', progress: { silent: true } });
    bm25 = await createRetriever({ name: 'bm25', index: join(root, 'bm25') });
  });
  afterAll(async () => {
    await bm25.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('returns LangChain Documents carrying id, score, rank, title and meta', async () => {
    const retriever = new HisragLangChainRetriever({ retriever: bm25, k: 2 });
    const docs = await retriever.invoke('状元 科举');
    expect(docs).toHaveLength(2);
    expect(docs[0]).toBeInstanceOf(Document);
    expect(docs[0]!.pageContent).toContain('状元');
    expect(docs[0]!.metadata).toMatchObject({ id: 'test:wiki-keju:1', docId: 'wiki-keju', title: '科举', rank: 1, meta: { section: 1 } });
    expect(docs[0]!.metadata.score).toBeGreaterThan(docs[1]!.metadata.score);
  });

  it('passes fixed query fields such as docId', async () => {
    const retriever = new HisragLangChainRetriever({ retriever: bm25, k: 5, query: { docId: 'book-a' } });
    const docs = await retriever.invoke('天下');
    expect(docs.length).toBeGreaterThan(0);
    expect(docs.every((doc) => doc.metadata.docId === 'book-a')).toBe(true);
  });
});

describe('retrievers from the registry', () => {
  it('are LangChain BaseRetrievers that run in an LCEL RunnableSequence', async () => {
    const root = mkdtempSync(join(tmpdir(), 'hisrag-lc-seq-'));
    try {
      const corpusDir = await writeTestCorpus(join(root, 'corpus'));
      await buildIndex({ corpusDir, out: join(root, 'bm25'), retriever: 'bm25', progress: { silent: true } });
      const retriever = await createRetriever({ name: 'bm25', index: join(root, 'bm25') });
      expect(retriever).toBeInstanceOf(BaseRetriever);
      expect(retriever.k).toBe(10);
      const titles = RunnableSequence.from([retriever.withSearch({ k: 3 }), (docs: Document[]) => docs.map((doc) => `${doc.metadata.rank}:${doc.metadata.title}`)]);
      expect(await titles.invoke('状元 科举')).toEqual(['1:科举', '2:科举', '3:科举']);
      const scoped = await retriever.withSearch({ query: { docId: 'book-b' } }).invoke('天下');
      expect(scoped.length).toBeGreaterThan(0);
      expect(scoped.every((doc) => doc.metadata.docId === 'book-b')).toBe(true);
      await retriever.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
