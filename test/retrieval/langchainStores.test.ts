import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Document } from '@langchain/core/documents';
import { BaseRetriever } from '@langchain/core/retrievers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildIndex } from '../../src/index/buildIndex.js';
import { HisragHnswVectorStore } from '../../src/retrieval/langchain/hnswVectorStore.js';
import { fromLangChain } from '../../src/retrieval/langchain/fromLangChain.js';
import { createRetrieverContext, RetrieverRegistry, type RetrieverContext } from '../../src/retrieval/registry.js';
import { createRetriever } from '../../src/retrieval/createRetriever.js';
import { buildTestIndexes, type BuiltIndexes } from './builtIndexes.js';

const QUERIES = ['科举考试', '殿试由谁主持', '匈奴', '西域诸国', '项羽'];

describe("@langchain/community's stores as hisrag retrievers", () => {
  let root: string;
  let built: BuiltIndexes;
  let lancedbIndex: string;
  let context: RetrieverContext;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-lcstores-'));
    built = await buildTestIndexes(root);
    lancedbIndex = join(root, 'lancedb');
    await buildIndex({ corpusDir: built.corpusDir, out: lancedbIndex, retriever: 'lancedb', embedder: { name: 'transformers', model: built.model }, embedderInstance: built.embedder, progress: { silent: true } });
    context = createRetrieverContext({ embedder: built.embedder });
  });
  afterAll(async () => {
    await built.embedder.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  async function expectSameRankingAsExact(spec: { name: string } & Record<string, unknown>, k = 5): Promise<void> {
    const store = await createRetriever(spec, context);
    const exact = await createRetriever({ name: 'exact', index: built.hnsw }, context);
    for (const text of QUERIES) {
      const [a, b] = [await store.retrieve({ text }, k), await exact.retrieve({ text }, k)];
      expect(a.map((hit) => hit.id), `${spec.name}: ${text}`).toEqual(b.map((hit) => hit.id));
      // The hnsw index stores its vectors in f16 (hisrag's default): scores agree to ~1e-4 with f32 ones.
      a.forEach((hit, i) => expect(hit.score).toBeCloseTo(b[i]!.score, 3));
      expect(a[0]).toMatchObject({ rank: 1, docId: b[0]!.docId, title: b[0]!.title, meta: b[0]!.meta, text: b[0]!.text });
    }
    await store.close();
    await exact.close();
  }

  it('langchain-hnswlib over an hnsw index ranks like exact search on the same vectors', async () => {
    await expectSameRankingAsExact({ name: 'langchain-hnswlib', index: built.hnsw, efSearch: 100 });
  });

  it('langchain-hnswlib restricts a query to one document through the HNSWLib filter', async () => {
    const retriever = await createRetriever({ name: 'langchain-hnswlib', index: built.hnsw }, context);
    const hits = await retriever.retrieve({ text: '天下', docId: 'book-b' }, 10);
    expect(hits.map((hit) => hit.docId)).toEqual(['book-b', 'book-b', 'book-b']);
    expect(retriever.describe()).toMatchObject({ name: 'langchain-hnswlib', langchain: 'VectorStore hnswlib', space: 'ip', count: 12 });
    await retriever.close();
  });

  it('langchain-hnswlib saves its store to a directory and loads it from there', async () => {
    const directory = join(root, 'hnswlib-saved');
    const first = await createRetriever({ name: 'langchain-hnswlib', index: built.hnsw, directory }, context);
    expect(existsSync(join(directory, 'hnswlib.index'))).toBe(true);
    const loaded = await createRetriever({ name: 'langchain-hnswlib', directory, embedder: { name: 'transformers', model: built.model } }, createRetrieverContext());
    expect((await loaded.retrieve({ text: '状元' }, 3)).map((hit) => hit.id)).toEqual((await first.retrieve({ text: '状元' }, 3)).map((hit) => hit.id));
    await first.close();
    await loaded.close();
  });

  it('langchain-lancedb over a copy of an hnsw index ranks like exact search', async () => {
    await expectSameRankingAsExact({ name: 'langchain-lancedb', index: built.hnsw });
  });

  it("langchain-lancedb searches a lancedb index's own table", async () => {
    await expectSameRankingAsExact({ name: 'langchain-lancedb', index: lancedbIndex });
  });

  it('langchain-lancedb refuses a document-scoped query instead of searching the whole corpus', async () => {
    const retriever = await createRetriever({ name: 'langchain-lancedb', index: lancedbIndex }, context);
    await expect(retriever.retrieve({ text: '天下', docId: 'book-b' }, 3)).rejects.toThrow(/cannot restrict a search to document "book-b"/);
    await retriever.close();
  });

  it('rejects unknown params and a sparse index by name', async () => {
    await expect(createRetriever({ name: 'langchain-hnswlib', index: built.hnsw, ef: 3 }, context)).rejects.toThrow(/ef/);
    await expect(createRetriever({ name: 'langchain-lancedb', index: built.bm25 }, context)).rejects.toThrow(/needs a dense index/);
  });
});

describe('fromLangChain', () => {
  let root: string;
  let built: BuiltIndexes;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-fromlc-'));
    built = await buildTestIndexes(root);
  });
  afterAll(async () => {
    await built.embedder.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('registers any LangChain VectorStore under a name, with config params, document filter and score', async () => {
    const registry = new RetrieverRegistry('retriever');
    const closed: string[] = [];
    registry.register(
      fromLangChain(
        'my-store',
        async (params: { index: string }) => ({
          source: await HisragHnswVectorStore.open(params.index, built.embedder),
          documentFilter: (docId: string) => ({ docId }),
          close: async () => void closed.push(params.index),
        }),
        { params: z.object({ index: z.string() }).strict() },
      ),
    );
    const retriever = await registry.create({ name: 'my-store', index: built.hnsw }, createRetrieverContext());
    expect(retriever).toBeInstanceOf(BaseRetriever);
    const hits = await retriever.retrieve({ text: '天下', docId: 'book-a' }, 10);
    expect(hits.map((hit) => hit.docId)).toEqual(['book-a', 'book-a', 'book-a', 'book-a']);
    expect(hits.map((hit) => hit.rank)).toEqual([1, 2, 3, 4]);
    expect(retriever.describe()).toEqual({ name: 'my-store', langchain: 'VectorStore hisrag-hnsw' });
    await expect(registry.create({ name: 'my-store', index: built.hnsw, extra: 1 }, createRetrieverContext())).rejects.toThrow(/extra/);
    await retriever.close();
    expect(closed).toEqual([built.hnsw]);
  });

  it('registers any BaseRetriever, cutting its list at k and taking metadata.score when present', async () => {
    class Fixed extends BaseRetriever {
      lc_namespace = ['test'];
      override async _getRelevantDocuments(query: string): Promise<Document[]> {
        return [1, 2, 3].map((n) => new Document({ pageContent: `${query} ${n}`, metadata: { id: `fixed:${n}`, docId: 'd', title: 't', score: 1 / n } }));
      }
    }
    const registry = new RetrieverRegistry('retriever');
    registry.register(fromLangChain('fixed', () => new Fixed()));
    const retriever = await registry.create({ name: 'fixed' }, createRetrieverContext());
    const hits = await retriever.retrieve({ text: 'q' }, 2);
    expect(hits).toEqual([
      { id: 'fixed:1', docId: 'd', title: 't', text: 'q 1', meta: {}, score: 1, rank: 1 },
      { id: 'fixed:2', docId: 'd', title: 't', text: 'q 2', meta: {}, score: 0.5, rank: 2 },
    ]);
    await expect(retriever.retrieve({ text: 'q', docId: 'd' }, 2)).rejects.toThrow(/document/);
  });
});
