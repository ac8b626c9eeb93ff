import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, InputError } from '../../src/errors.js';
import { createRetrieverContext, retrievers } from '../../src/retrieval/registry.js';
import { createRetriever } from '../../src/retrieval/createRetriever.js';
import type { Retriever } from '../../src/retrieval/types.js';
import { buildTestIndexes, type BuiltIndexes } from './builtIndexes.js';

describe('retrievers', () => {
  let root: string;
  let built: BuiltIndexes;
  const open: Retriever[] = [];
  const make = async (spec: { name: string } & Record<string, unknown>) => {
    const retriever = await createRetriever(spec, createRetrieverContext({ embedder: built.embedder }));
    open.push(retriever);
    return retriever;
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-retrievers-'));
    built = await buildTestIndexes(root);
  });
  afterAll(async () => {
    for (const retriever of open) await retriever.close();
    await built.embedder.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('registers every retriever of the study by name', async () => {
    expect(retrievers.names()).toEqual(['bm25', 'exact', 'hnsw', 'hybrid', 'lancedb', 'langchain-hnswlib', 'langchain-lancedb', 'oracle', 'oracle+noise', 'random']);
  });

  it('hnsw returns the same ranking as exact search on a small index, ranks numbered from 1', async () => {
    const hnsw = await make({ name: 'hnsw', index: built.hnsw });
    const exact = await make({ name: 'exact', index: built.hnsw });
    for (const text of ['秦始皇统一天下', '科举考试状元', '张骞通西域']) {
      const a = await hnsw.retrieve({ text }, 5);
      const b = await exact.retrieve({ text }, 5);
      expect(a.map((c) => c.id)).toEqual(b.map((c) => c.id));
      a.forEach((chunk, i) => expect(chunk.score).toBeCloseTo(b[i]!.score, 5));
      expect(a.map((c) => c.rank)).toEqual([1, 2, 3, 4, 5]);
    }
  });

  it.each(['hnsw', 'exact'])('%s retrieveBatch gives each query what retrieve gives it, document-scoped queries included', async (name) => {
    const retriever = await make({ name, index: built.hnsw });
    const queries = [{ text: '秦始皇统一天下' }, { text: '科举考试状元' }, { text: '张骞通西域', docId: 'book-b' }, { text: '项羽' }];
    const batch = await retriever.retrieveBatch!(queries, 4);
    expect(batch).toHaveLength(queries.length);
    for (const [i, query] of queries.entries()) {
      const single = await retriever.retrieve(query, 4);
      expect(batch[i]!.map((c) => c.id)).toEqual(single.map((c) => c.id));
      expect(batch[i]!.map((c) => c.text)).toEqual(single.map((c) => c.text));
      batch[i]!.forEach((chunk, j) => expect(chunk.score).toBeCloseTo(single[j]!.score, 4));
    }
    expect(batch[2]!.every((c) => c.docId === 'book-b')).toBe(true);
  });

  it('records the tuned efSearch and its measured recall in the description', async () => {
    const hnsw = await make({ name: 'hnsw', index: built.hnsw });
    const described = hnsw.describe();
    expect(described.efSearchRecall?.efSearch).toBe(described.efSearch);
    expect(described.efSearchRecall?.recall).toBeGreaterThanOrEqual(0);
  });

  it('returns whole chunks: id, docId, title, text and meta', async () => {
    const bm25 = await make({ name: 'bm25', index: built.bm25 });
    const [top] = await bm25.retrieve({ text: '状元' }, 1);
    expect(top).toMatchObject({ id: 'test:wiki-keju:1', docId: 'wiki-keju', title: '科举', meta: { section: 1 }, rank: 1 });
    expect(top!.text).toContain('状元');
  });

  it('bm25 finds traditional-script pages from a simplified query', async () => {
    const bm25 = await make({ name: 'bm25', index: built.bm25 });
    const hits = await bm25.retrieve({ text: '霍去病击匈奴' }, 3);
    expect(hits[0]!.id).toBe('test:book-b:2');
  });

  it.each(['hnsw', 'exact', 'bm25'])('%s with docId ranks only that document’s chunks', async (name) => {
    const retriever = await make({ name, index: name === 'bm25' ? built.bm25 : built.hnsw });
    const hits = await retriever.retrieve({ text: '天下', docId: 'book-a' }, 10);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((hit) => hit.docId === 'book-a')).toBe(true);
    if (name !== 'bm25') expect(hits).toHaveLength(4);
  });

  it('refuses a docId the index does not hold', async () => {
    const exact = await make({ name: 'exact', index: built.hnsw });
    await expect(exact.retrieve({ text: '天下', docId: 'nope' }, 5)).rejects.toThrow(InputError);
  });

  it('hybrid fuses a dense and a lexical retriever built through the same registry', async () => {
    const hybrid = await make({
      name: 'hybrid',
      retrievers: [{ name: 'exact', index: built.hnsw }, { name: 'bm25', index: built.bm25 }],
      fusion: 'rrf',
    });
    const hits = await hybrid.retrieve({ text: '霍去病击匈奴' }, 5);
    expect(hits).toHaveLength(5);
    expect(new Set(hits.map((h) => h.id)).size).toBe(5);
    expect(hits.map((h) => h.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[4]!.score);
    expect(hybrid.describe()).toMatchObject({ name: 'hybrid', fusion: 'rrf', rrfK: 60 });
  });

  it('rejects bad params with the path of the field', async () => {
    await expect(make({ name: 'hybrid', retrievers: [{ name: 'bm25', index: built.bm25 }] })).rejects.toThrow(ConfigError);
    await expect(make({ name: 'hnsw', index: built.hnsw, efSearch: -1 })).rejects.toThrow(/retriever\.efSearch/);
    await expect(make({ name: 'hnsw', index: built.bm25 })).rejects.toThrow(/needs an hnsw index/);
  });
});
