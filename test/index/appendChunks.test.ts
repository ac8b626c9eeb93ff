import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TextEmbedder } from '../../src/embedding/types.js';
import { appendChunks } from '../../src/index/appendChunks.js';
import { buildIndex } from '../../src/index/buildIndex.js';
import { ChunkStore } from '../../src/index/chunkStore.js';
import { openIndex } from '../../src/index/openIndex.js';
import { indexFixture } from './indexFixture.js';

const extra = [
  { id: 'added:0', docId: 'added', title: '三国志', text: '诸葛亮躬耕于南阳，刘备三顾茅庐。', meta: {} },
  { id: 'added:1', docId: 'added', title: '三国志', text: '赤壁之战，孙刘联军大破曹操。', meta: {} },
];

describe('appendChunks (incremental add)', () => {
  let root: string;
  let corpusDir: string;
  let embedder: TextEmbedder;
  let spec: { name: string; model: string };
  indexFixture('hisrag-append-', (fixture) => ({ root, corpusDir, spec, embedder } = fixture));

  it('adds chunks to an hnsw index so the graph finds them, and counts them as appended', async () => {
    const out = join(root, 'hnsw');
    await buildIndex({ corpusDir, out, retriever: 'hnsw', embedder: spec, embedderInstance: embedder, progress: { silent: true } });
    const manifest = await appendChunks(out, extra, { embedder });
    expect(manifest.counts).toMatchObject({ chunks: 14, vectors: 14, documents: 4, appended: 2 });
    const index = await openIndex(out, { embedder });
    expect(index.hnsw().getCurrentCount()).toBe(14);
    const [vector] = await embedder.embedDocuments([`${extra[1]!.title}\n${extra[1]!.text}`]);
    const { neighbors } = index.hnsw().searchKnn(vector!, 1);
    expect(index.store.byLabel(neighbors[0]!)?.id).toBe('added:1');
    await index.close();
  });

  it('recovers chunks committed to the store but missing from hnsw.bin when the index is opened', async () => {
    const out = join(root, 'crashed');
    await buildIndex({ corpusDir, out, retriever: 'hnsw', embedder: spec, embedderInstance: embedder, progress: { silent: true } });
    // Simulate a crash after the store commit and before hnsw.bin was rewritten.
    const store = ChunkStore.open(join(out, 'chunks.sqlite'));
    store.append(extra, (await embedder.embedDocuments(extra.map((c) => `${c.title}\n${c.text}`))).map((v) => Float32Array.from(v)));
    store.finish();
    store.close();
    const index = await openIndex(out, { embedder });
    expect(index.hnsw().getCurrentCount()).toBe(14);
    await index.close();
  });

  it('adds chunks to a bm25 index by rebuilding its postings', async () => {
    const out = join(root, 'bm25');
    await buildIndex({ corpusDir, out, retriever: 'bm25', progress: { silent: true } });
    await appendChunks(out, extra);
    const index = await openIndex(out);
    const [top] = index.bm25().search('诸葛亮', 1);
    expect(index.store.byLabel(top!.label)?.id).toBe('added:0');
    await index.close();
  });
});
