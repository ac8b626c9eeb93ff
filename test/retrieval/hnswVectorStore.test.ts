import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Document } from '@langchain/core/documents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HisragHnswVectorStore } from '../../src/retrieval/langchain/hnswVectorStore.js';
import { buildTestIndexes, type BuiltIndexes } from './builtIndexes.js';

describe('HisragHnswVectorStore', () => {
  let root: string;
  let built: BuiltIndexes;
  let store: HisragHnswVectorStore;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-vs-'));
    built = await buildTestIndexes(root);
    store = await HisragHnswVectorStore.open(built.hnsw, built.embedder);
  });
  afterAll(async () => {
    await store.close();
    await built.embedder.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers similaritySearchWithScore with Documents whose metadata carries id, score and rank', async () => {
    const results = await store.similaritySearchWithScore('科举考试', 3);
    expect(results).toHaveLength(3);
    const [doc, score] = results[0]!;
    expect(doc.metadata).toMatchObject({ rank: 1, score });
    expect(typeof doc.metadata.id).toBe('string');
    expect(results[0]![1]).toBeGreaterThanOrEqual(results[2]![1]);
  });

  it('filters by docId', async () => {
    const results = await store.similaritySearch('天下', 10, { docId: 'book-b' });
    expect(results.map((doc) => doc.metadata.docId)).toEqual(['book-b', 'book-b', 'book-b']);
  });

  it('adds documents that later searches find', async () => {
    const ids = await store.addDocuments([
      new Document({ pageContent: '王安石变法，推行青苗法与募役法。', metadata: { id: 'lc:wang', docId: 'song', title: '宋史' } }),
    ]);
    expect(ids).toEqual(['lc:wang']);
    const [vector] = await built.embedder.embedDocuments(['宋史\n王安石变法，推行青苗法与募役法。']);
    const [[top]] = [await store.similaritySearchVectorWithScore(vector!, 1)];
    expect(top![0].metadata).toMatchObject({ id: 'lc:wang', docId: 'song', title: '宋史' });
  });
});
